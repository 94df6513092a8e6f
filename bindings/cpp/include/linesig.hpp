// linesig from C++: a header-only wrapper over the C ABI (crates/linesig-ffi/include/
// linesig.h) that owns what the C ABI hands out (engines, leanSig keys, buffers) and
// turns every failed call into a `linesig::Error`. C++20; link liblinesig_ffi.a
// (`cargo build --release -p linesig-ffi`) with -lpthread -ldl -lm.
//
//   linesig::Engine engine({.scheme = linesig::Scheme::mldsa44});
//   linesig::Verdicts v = engine.verify(items);      // one verdict per item, in order
//   if (!v.valid(3)) std::puts(v.reason(3).data());  // "equation_failed", ...
//
// Errors are exceptions, not expected-style results, because of what fails here: a
// constructor (an engine, a key) that fails has no object to return, and the failures
// themselves (a bad configuration, a wrong length, an epoch already signed, a damaged
// key file) are a caller's mistakes or a broken environment that the calling code
// rarely handles on the spot. A signature that does not verify is not an error: it is a
// verdict, returned like any other. Every `Error` carries the C ABI's status and
// linesig's reason for that failure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "linesig.h"

namespace linesig {

// What the engines verify and the key calls take (the C ABI's scheme numbers).
enum class Scheme : uint32_t {
    ed25519 = LINESIG_SCHEME_ED25519,
    mldsa44 = LINESIG_SCHEME_MLDSA44,
    mldsa65 = LINESIG_SCHEME_MLDSA65,
    mldsa87 = LINESIG_SCHEME_MLDSA87,
    // leanSig: each item's context is its epoch (`leansig::epoch_context`).
    leansig_devnet4 = LINESIG_SCHEME_LEANSIG_DEVNET4,
    leansig_l18 = LINESIG_SCHEME_LEANSIG_L18,
    leansig_l32 = LINESIG_SCHEME_LEANSIG_L32,
    // leanXMSS, the lean devnets' BLAKE2s XMSS: the same epoch context as leanSig.
    leanxmss = LINESIG_SCHEME_LEANXMSS,
};

// Ed25519 acceptance rules (docs/design.md §3).
enum class Policy : uint32_t {
    strict = 0,         // Solana today (ed25519-dalek verify_strict)
    zip215 = 1,         // Zcash, Cosmos
    zip215_strict = 2,  // Solana SIMD-0376
};

// 0 = the fastest the CPU runs; the others for measurements and cross-checks.
// `reference` and `ifma` are the earlier names of `portable` and `avx512`.
enum class Backend : uint32_t {
    automatic = 0,
    portable = 1,
    avx2 = 2,
    avx512 = 3,
    reference = portable,
    ifma = avx512,
};

using Bytes = std::span<const uint8_t>;
using Buffer = std::vector<uint8_t>;

// A failed call: `status()` is the C ABI's (LINESIG_STATUS_*), `what()` its kind and
// linesig's reason ("wrong length: signature: 63 bytes, expected 64"), `failed_index()`
// the signer an aggregation call names (LINESIG_STATUS_INVALID_ITEM), else SIZE_MAX.
class Error : public std::runtime_error {
public:
    Error(int status, const std::string& what, size_t failed_index = SIZE_MAX)
        : std::runtime_error(what), status_(status), failed_index_(failed_index) {}
    int status() const noexcept { return status_; }
    size_t failed_index() const noexcept { return failed_index_; }

private:
    int status_;
    size_t failed_index_;
};

namespace detail {

// Throws the calling thread's last failure (the C ABI keeps the reason per thread).
inline void check(int status, size_t failed_index = SIZE_MAX) {
    if (status != LINESIG_STATUS_OK) {
        throw Error(status, std::string(linesig_status_message(status)) + ": " + linesig_last_error_message(),
                    failed_index);
    }
}

inline LinesigBytes view(Bytes b) noexcept { return {b.data(), b.size()}; }

// Bytes the C ABI allocated, copied out and freed.
inline Buffer take(LinesigBuffer& b) {
    Buffer out(b.ptr, b.ptr + b.len);
    linesig_buffer_free(&b);
    return out;
}

// A scheme's size, or an Error for a scheme that has none.
inline size_t known_len(size_t len, Scheme s) {
    if (len == 0) {
        throw Error(LINESIG_STATUS_UNKNOWN_SCHEME,
                    "unknown scheme: " + std::to_string(static_cast<uint32_t>(s)));
    }
    return len;
}

}  // namespace detail

inline size_t public_key_len(Scheme s) {
    return detail::known_len(linesig_public_key_len(static_cast<uint32_t>(s)), s);
}
inline size_t signature_len(Scheme s) {
    return detail::known_len(linesig_signature_len(static_cast<uint32_t>(s)), s);
}
inline std::string_view name(Scheme s) noexcept { return linesig_scheme_name(static_cast<uint32_t>(s)); }
// A verdict code's name: "valid" for 0, "bad_length", "equation_failed", ...
inline std::string_view reason_name(uint8_t code) noexcept { return linesig_reason_name(code); }
inline std::string_view version() noexcept { return linesig_version(); }

// The C ABI's `batch_equation`: automatic (on), on, or off.
enum class BatchEquation : uint32_t { automatic = 0, on = 1, off = 2 };

// Zero or unset fields take the C ABI's defaults: all cores, 512 items per unit, no
// key cache.
struct Config {
    Scheme scheme = Scheme::ed25519;
    Policy policy = Policy::strict;
    uint32_t workers = 0;
    uint32_t batch_size = 0;
    uint64_t key_cache_bytes = 0;
    Backend backend = Backend::automatic;
    // zip215 / zip215-strict: check each work unit with one randomized batch equation
    // first (on, the default) or each signature alone (off). Same verdicts either way.
    BatchEquation batch_equation = BatchEquation::automatic;
};

// One signature to verify; `context` is ML-DSA's context string or leanSig's epoch
// (empty for Ed25519). The views must outlive the verify call only.
struct Item {
    Bytes public_key;
    Bytes message;
    Bytes signature;
    Bytes context = {};
};

// One verdict per item, in input order: code 0 is valid, any other names the reason.
class Verdicts {
public:
    explicit Verdicts(std::vector<uint8_t> codes) : codes_(std::move(codes)) {}
    size_t size() const noexcept { return codes_.size(); }
    bool valid(size_t i) const { return codes_.at(i) == 0; }
    uint8_t code(size_t i) const { return codes_.at(i); }
    std::string_view reason(size_t i) const { return reason_name(codes_.at(i)); }
    bool all_valid() const noexcept {
        for (uint8_t c : codes_) {
            if (c != 0) return false;
        }
        return true;
    }
    size_t count_valid() const noexcept {
        size_t n = 0;
        for (uint8_t c : codes_) n += c == 0;
        return n;
    }
    const std::vector<uint8_t>& codes() const noexcept { return codes_; }

private:
    std::vector<uint8_t> codes_;
};

// A verifier with its own worker pool; safe to share between threads.
class Engine {
public:
    explicit Engine(const Config& config = {}) {
        LinesigConfig c{};
        c.scheme = static_cast<uint32_t>(config.scheme);
        c.policy = static_cast<uint32_t>(config.policy);
        c.workers = config.workers;
        c.batch_size = config.batch_size;
        c.backend = static_cast<uint32_t>(config.backend);
        c.key_cache_bytes = config.key_cache_bytes;
        c.batch_equation = static_cast<uint32_t>(config.batch_equation);
        LinesigEngine* raw = nullptr;
        detail::check(linesig_engine_new(&c, &raw));
        engine_.reset(raw);
    }

    // Verifies every item on the engine's workers.
    Verdicts verify(std::span<const Item> items) const {
        const size_t n = items.size();
        std::vector<LinesigBytes> fields(4 * n);
        bool any_context = false;
        for (size_t i = 0; i < n; i++) {
            fields[i] = detail::view(items[i].public_key);
            fields[n + i] = detail::view(items[i].message);
            fields[2 * n + i] = detail::view(items[i].signature);
            fields[3 * n + i] = detail::view(items[i].context);
            any_context = any_context || !items[i].context.empty();
        }
        return verify_columns(n, fields.data(), fields.data() + n, fields.data() + 2 * n,
                              any_context ? fields.data() + 3 * n : nullptr);
    }

    // The same over the C ABI's column layout (no copy of the descriptors): `contexts`
    // may be null.
    Verdicts verify_columns(size_t n, const LinesigBytes* public_keys, const LinesigBytes* messages,
                            const LinesigBytes* signatures, const LinesigBytes* contexts) const {
        std::vector<uint8_t> codes(n);
        if (n > 0) {
            detail::check(linesig_verify(engine_.get(), n, public_keys, messages, signatures, contexts, codes.data()));
        }
        return Verdicts(std::move(codes));
    }

    // "portable", "avx2" or "avx512".
    std::string_view backend() const noexcept { return linesig_engine_backend(engine_.get()); }

private:
    struct Free {
        void operator()(LinesigEngine* e) const noexcept { linesig_engine_free(e); }
    };
    std::unique_ptr<LinesigEngine, Free> engine_;
};

// Ed25519 keys and signatures from a 32-byte secret seed (RFC 8032, deterministic).
namespace ed25519 {

inline Buffer public_key(Bytes seed) {
    Buffer pk(32);
    detail::check(linesig_ed25519_public_key(seed.data(), seed.size(), pk.data(), pk.size()));
    return pk;
}

inline Buffer sign(Bytes seed, Bytes message) {
    Buffer sig(64);
    detail::check(linesig_ed25519_sign(seed.data(), seed.size(), message.data(), message.size(), sig.data(), sig.size()));
    return sig;
}

}  // namespace ed25519

// ML-DSA (FIPS 204) keys and signatures.
namespace mldsa {

struct KeyPair {
    Buffer public_key;
    Buffer signing_key;
};

// ML-DSA.KeyGen_internal from the 32-byte seed ξ: the same keys as every FIPS 204
// implementation.
inline KeyPair keygen(Scheme s, Bytes seed) {
    const auto scheme = static_cast<uint32_t>(s);
    KeyPair pair{Buffer(public_key_len(s)), Buffer(detail::known_len(linesig_mldsa_signing_key_len(scheme), s))};
    detail::check(linesig_mldsa_keygen(scheme, seed.data(), seed.size(), pair.public_key.data(), pair.public_key.size(),
                                       pair.signing_key.data(), pair.signing_key.size()));
    return pair;
}

// ML-DSA.Sign under `context` (at most 255 bytes): hedged with `randomness` (32 fresh
// bytes), deterministic when `randomness` is empty.
inline Buffer sign(Scheme s, Bytes signing_key, Bytes message, Bytes context = {}, Bytes randomness = {}) {
    Buffer sig(signature_len(s));
    detail::check(linesig_mldsa_sign(static_cast<uint32_t>(s), signing_key.data(), signing_key.size(), message.data(),
                                     message.size(), context.data(), context.size(), randomness.data(),
                                     randomness.size(), sig.data(), sig.size()));
    return sig;
}

}  // namespace mldsa

// leanSig (stateful, hash-based): keys that must never sign an epoch twice, and
// aggregation of many signatures into one proof (devnet-4).
namespace leansig {

// A leanSig item's context: its epoch, four bytes little-endian.
inline std::array<uint8_t, 4> epoch_context(uint32_t epoch) noexcept {
    return {static_cast<uint8_t>(epoch), static_cast<uint8_t>(epoch >> 8), static_cast<uint8_t>(epoch >> 16),
            static_cast<uint8_t>(epoch >> 24)};
}

using KeyInfo = LinesigLeansigKeyInfo;

// A secret key and its signing state; movable, not copyable (a copy could sign an
// epoch twice). One thread at a time.
class Key {
public:
    // A key active over at least `epochs` epochs from `start`; an empty `seed` takes
    // the operating system's randomness.
    static Key generate(Scheme s, uint64_t start, uint64_t epochs, Bytes seed = {}) {
        LinesigLeansigKey* raw = nullptr;
        detail::check(linesig_leansig_keygen(static_cast<uint32_t>(s), seed.data(), seed.size(), start, epochs, &raw));
        return Key(raw);
    }

    // A key saved by `to_bytes`; damaged, foreign or other-scheme bytes throw
    // (LINESIG_STATUS_BAD_KEY).
    static Key from_bytes(Scheme s, Bytes bytes) {
        LinesigLeansigKey* raw = nullptr;
        detail::check(linesig_leansig_key_from_bytes(static_cast<uint32_t>(s), bytes.data(), bytes.size(), &raw));
        return Key(raw);
    }

    KeyInfo info() const {
        KeyInfo info{};
        detail::check(linesig_leansig_key_info(key_.get(), &info));
        return info;
    }

    Buffer public_key() const {
        Buffer pk(public_key_len(scheme()));
        detail::check(linesig_leansig_public_key(key_.get(), pk.data(), pk.size()));
        return pk;
    }

    // Signs the 32-byte `message` at `epoch`; an epoch not after every one signed
    // throws (LINESIG_STATUS_EPOCH_USED). Save the key before the signature leaves.
    Buffer sign(uint32_t epoch, Bytes message) {
        Buffer sig(signature_len(scheme()));
        detail::check(linesig_leansig_sign(key_.get(), epoch, message.data(), message.size(), sig.data(), sig.size()));
        return sig;
    }

    // Prepares the next bottom tree; false once the activation interval's end is
    // reached.
    bool advance_preparation() {
        bool moved = false;
        detail::check(linesig_leansig_advance_preparation(key_.get(), &moved));
        return moved;
    }

    Buffer to_bytes() const {
        LinesigBuffer b{};
        detail::check(linesig_leansig_key_to_bytes(key_.get(), &b));
        return detail::take(b);
    }

    Scheme scheme() const { return static_cast<Scheme>(info().scheme); }

private:
    friend class KeyFile;
    explicit Key(LinesigLeansigKey* raw) : key_(raw) {}
    struct Free {
        void operator()(LinesigLeansigKey* k) const noexcept { linesig_leansig_key_free(k); }
    };
    std::unique_ptr<LinesigLeansigKey, Free> key_;
};

// A key file open for signing, the protocol `linesig sign` follows: the file is locked
// (an exclusive flock) from `open` until the `KeyFile` is destroyed, so a second
// signer, in this process or another, waits; and `sign` saves the key durably before
// it returns the signature, so no later `open` can sign that epoch again, whatever
// crashes. A signer that keeps keys in its own store must do the same: a lock over
// load, sign and save, and the save before the signature leaves. Movable, not
// copyable; one thread at a time.
class KeyFile {
public:
    // Writes `key` to a new file at `path`, durably; an existing file throws
    // (LINESIG_STATUS_IO_ERROR: a key file is never overwritten).
    static void create(const Key& key, const std::string& path);

    // Opens and locks the file (waiting while another signer holds it) and loads the
    // key; LINESIG_STATUS_IO_ERROR for a file that cannot be read, BAD_KEY for a damaged,
    // foreign or other-scheme one.
    static KeyFile open(Scheme s, const std::string& path) {
        LinesigLeansigKeyFile* raw = nullptr;
        detail::check(linesig_leansig_key_file_open(static_cast<uint32_t>(s), path.c_str(), &raw));
        return KeyFile(raw);
    }

    KeyInfo info() const {
        KeyInfo info{};
        detail::check(linesig_leansig_key_file_info(file_.get(), &info));
        return info;
    }

    // Signs the 32-byte `message` at `epoch` and saves the file first: the epoch rules
    // of `Key::sign`; LINESIG_STATUS_IO_ERROR if the save failed (no signature, and the
    // epoch used up all the same).
    Buffer sign(uint32_t epoch, Bytes message) {
        Buffer sig(signature_len(static_cast<Scheme>(info().scheme)));
        detail::check(
            linesig_leansig_key_file_sign(file_.get(), epoch, message.data(), message.size(), sig.data(), sig.size()));
        return sig;
    }

private:
    explicit KeyFile(LinesigLeansigKeyFile* raw) : file_(raw) {}
    struct Close {
        void operator()(LinesigLeansigKeyFile* f) const noexcept { linesig_leansig_key_file_close(f); }
    };
    std::unique_ptr<LinesigLeansigKeyFile, Close> file_;
};

inline void KeyFile::create(const Key& key, const std::string& path) {
    detail::check(linesig_leansig_key_file_create(key.key_.get(), path.c_str()));
}

// One signer of an aggregate: key, 32-byte message, epoch, and (to aggregate) its
// signature.
struct Signer {
    Bytes public_key;
    Bytes message;
    uint32_t epoch;
    Bytes signature = {};
};

namespace detail_aggregate {
struct Columns {
    std::vector<LinesigBytes> keys, messages, signatures;
    std::vector<uint32_t> epochs;
    explicit Columns(std::span<const Signer> signers) {
        for (const Signer& s : signers) {
            keys.push_back(detail::view(s.public_key));
            messages.push_back(detail::view(s.message));
            signatures.push_back(detail::view(s.signature));
            epochs.push_back(s.epoch);
        }
    }
};
}  // namespace detail_aggregate

// Proves that every signer's signature verifies (devnet-4, 1 to 8,192 signers). A
// signature that does not verify throws LINESIG_STATUS_INVALID_ITEM with its index in
// `failed_index()`.
inline Buffer aggregate(Scheme s, std::span<const Signer> signers) {
    detail_aggregate::Columns c(signers);
    LinesigBuffer proof{};
    size_t failed = SIZE_MAX;
    // The status first: a call's arguments are evaluated in no set order, and `failed`
    // is written by the call.
    const int status = linesig_leansig_aggregate(static_cast<uint32_t>(s), signers.size(), c.keys.data(),
                                                 c.messages.data(), c.epochs.data(), c.signatures.data(), &proof,
                                                 &failed);
    detail::check(status, failed);
    return detail::take(proof);
}

// True if `proof` proves that each signer signed its message at its epoch, in this
// order; false if it does not; bytes that are no proof throw (MALFORMED_PROOF), and so
// does a signer that does not decode (INVALID_ITEM, its index in `failed_index()`).
inline bool verify_aggregate(Scheme s, std::span<const Signer> signers, Bytes proof) {
    detail_aggregate::Columns c(signers);
    size_t failed = SIZE_MAX;
    int status = linesig_leansig_verify_aggregate(static_cast<uint32_t>(s), signers.size(), c.keys.data(),
                                                  c.messages.data(), c.epochs.data(), proof.data(), proof.size(),
                                                  &failed);
    if (status == LINESIG_STATUS_PROOF_REJECTED) return false;
    detail::check(status, failed);
    return true;
}

}  // namespace leansig

}  // namespace linesig
