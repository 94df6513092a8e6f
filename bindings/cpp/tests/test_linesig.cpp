// The C++ face against the shared ML-DSA vectors (NIST ACVP keyGen: every key pair byte
// for byte; Wycheproof ML-DSA-44 verify: every verdict, contexts included), then
// round trips at every ML-DSA level, Ed25519 and leanSig through the RAII types, a
// devnet-4 aggregate, and the errors they throw. Vectors: ../shared/vectors beside the checkout, or
// $LINESIG_VECTORS_DIR.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "linesig.hpp"

using linesig::Buffer;
using linesig::Scheme;

static int failures = 0;
#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::fprintf(stderr, "failed: %s (line %d)\n", #cond, __LINE__); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

// The status of the linesig::Error that `body` throws, or -1 if it throws none.
template <typename F>
static int thrown_status(F body) {
    try {
        body();
    } catch (const linesig::Error& e) {
        return std::string(e.what()).empty() ? -2 : e.status();
    }
    return -1;
}

static Buffer unhex(const std::string& s) {
    Buffer out(s.size() / 2);
    for (size_t i = 0; i < out.size(); i++) out[i] = static_cast<uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
    return out;
}

static nlohmann::json load(const std::string& name) {
    const char* env = std::getenv("LINESIG_VECTORS_DIR");
    std::string dir = env && *env ? env : "../shared/vectors";
    std::ifstream in(dir + "/mldsa/" + name);
    if (!in) {
        std::fprintf(stderr, "cannot read %s/mldsa/%s\n", dir.c_str(), name.c_str());
        std::exit(1);
    }
    return nlohmann::json::parse(in);
}

static Scheme parameter_set(const std::string& name) {
    return name == "ML-DSA-44" ? Scheme::mldsa44 : name == "ML-DSA-65" ? Scheme::mldsa65 : Scheme::mldsa87;
}

static void acvp_keygen() {
    int cases = 0;
    const nlohmann::json doc = load("ML-DSA-keyGen-FIPS204.internalProjection.json");
    for (const auto& group : doc["testGroups"]) {
        Scheme s = parameter_set(group["parameterSet"]);
        for (const auto& t : group["tests"]) {
            auto pair = linesig::mldsa::keygen(s, unhex(t["seed"]));
            CHECK(pair.public_key == unhex(t["pk"]));
            CHECK(pair.signing_key == unhex(t["sk"]));
            cases++;
        }
    }
    CHECK(cases == 75);
    std::printf("ACVP keyGen: %d key pairs\n", cases);
}

static void wycheproof_verify() {
    linesig::Engine engine({.scheme = Scheme::mldsa44, .workers = 2});
    std::vector<Buffer> keys, msgs, sigs, ctxs;
    std::vector<bool> expected;
    const nlohmann::json doc = load("wycheproof_mldsa_44_verify_test.json");
    for (const auto& group : doc["testGroups"]) {
        for (const auto& t : group["tests"]) {
            keys.push_back(unhex(group["publicKey"]));
            msgs.push_back(unhex(t["msg"]));
            sigs.push_back(unhex(t["sig"]));
            ctxs.push_back(t.contains("ctx") ? unhex(t["ctx"]) : Buffer{});
            expected.push_back(t["result"] == "valid");
        }
    }
    std::vector<linesig::Item> items;
    for (size_t i = 0; i < keys.size(); i++) items.push_back({keys[i], msgs[i], sigs[i], ctxs[i]});
    linesig::Verdicts v = engine.verify(items);
    size_t agree = 0, valid = 0;
    for (size_t i = 0; i < items.size(); i++) {
        agree += v.valid(i) == expected[i];
        valid += v.valid(i);
        if (v.valid(i) != expected[i]) std::fprintf(stderr, "wycheproof case %zu: %s\n", i, v.reason(i).data());
    }
    CHECK(items.size() == 180 && agree == items.size() && valid == 77);
    std::printf("Wycheproof ML-DSA-44 verify: %zu of %zu verdicts as expected (%zu valid)\n", agree, items.size(), valid);
}

static void round_trips() {
    const Buffer seed(32, 7), msg(32, 1), ctx = {'c', 't', 'x'}, rnd(32, 9);
    for (Scheme s : {Scheme::mldsa44, Scheme::mldsa65, Scheme::mldsa87}) {
        auto pair = linesig::mldsa::keygen(s, seed);
        Buffer hedged = linesig::mldsa::sign(s, pair.signing_key, msg, ctx, rnd);
        Buffer det = linesig::mldsa::sign(s, pair.signing_key, msg, ctx);
        CHECK(det == linesig::mldsa::sign(s, pair.signing_key, msg, ctx));
        Buffer bad = det;
        bad[bad.size() / 2] ^= 1;
        linesig::Engine engine({.scheme = s, .workers = 1});
        std::vector<linesig::Item> items = {
            {pair.public_key, msg, hedged, ctx}, {pair.public_key, msg, det, ctx}, {pair.public_key, msg, det, {}},
            {pair.public_key, msg, bad, ctx}};
        auto v = engine.verify(items);
        CHECK(v.valid(0) && v.valid(1) && !v.valid(2) && !v.valid(3) && v.count_valid() == 2 && !v.all_valid());
    }
    // Ed25519: RFC 8032 TEST 1's public key, then a batch with one corrupted signature.
    Buffer rfc_seed = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    CHECK(linesig::ed25519::public_key(rfc_seed) ==
          unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
    linesig::Engine ed({.policy = linesig::Policy::zip215_strict, .workers = 2});
    std::vector<Buffer> pks, sigs;
    for (int i = 0; i < 20; i++) {
        Buffer s(32, static_cast<uint8_t>(i));
        pks.push_back(linesig::ed25519::public_key(s));
        sigs.push_back(linesig::ed25519::sign(s, msg));
    }
    sigs[13][40] ^= 4;
    std::vector<linesig::Item> items;
    for (int i = 0; i < 20; i++) items.push_back({pks[i], msg, sigs[i]});
    auto v = ed.verify(items);
    CHECK(v.count_valid() == 19 && !v.valid(13) && v.reason(13) == "equation_failed");
    CHECK(ed.backend().size() > 0);
    // leanSig L18: sign, save, reload; the used epoch stays used.
    auto key = linesig::leansig::Key::generate(Scheme::leansig_l18, 0, 1024, seed);
    Buffer lsig = key.sign(5, msg);
    Buffer saved = key.to_bytes();
    auto again = linesig::leansig::Key::from_bytes(Scheme::leansig_l18, saved);
    CHECK(again.info().next_epoch == 6 && again.public_key() == key.public_key());
    CHECK(thrown_status([&] { again.sign(5, msg); }) == LINESIG_STATUS_EPOCH_USED);
    auto ctx5 = linesig::leansig::epoch_context(5);
    linesig::Engine lean({.scheme = Scheme::leansig_l18, .workers = 1});
    const Buffer lpk = key.public_key();  // an Item views bytes it does not own
    std::vector<linesig::Item> one = {{lpk, msg, lsig, ctx5}};
    CHECK(lean.verify(one).all_valid());
    std::printf("round trips: ML-DSA-44/65/87, Ed25519, leanSig L18\n");
}

// leanXMSS: the spec's valid vector verifies through the engine; tampered, or at another
// epoch, it does not.
static void leanxmss_vector() {
    const char* env = std::getenv("LINESIG_VECTORS_DIR");
    std::string path = std::string(env && *env ? env : "../shared/vectors") + "/leanxmss/verify/verify_valid/data.yaml";
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(1);
    }
    std::string line, pk, msg, sig;
    uint32_t epoch = 0;
    auto value = [](const std::string& l) { return l.substr(l.find("0x") + 2, l.rfind('\'') - l.find("0x") - 2); };
    while (std::getline(in, line)) {
        if (line.find("public_key:") != std::string::npos) pk = value(line);
        if (line.find("message:") != std::string::npos) msg = value(line);
        if (line.find("signature:") != std::string::npos) sig = value(line);
        if (line.find("epoch:") != std::string::npos) epoch = static_cast<uint32_t>(std::stoul(line.substr(line.find(':') + 1)));
    }
    const Buffer key = unhex(pk), message = unhex(msg), signature = unhex(sig);
    Buffer tampered = signature;
    tampered[1000] ^= 0x10;
    auto ctx = linesig::leansig::epoch_context(epoch);
    auto other = linesig::leansig::epoch_context(epoch + 1);
    linesig::Engine engine({.scheme = Scheme::leanxmss, .workers = 2});
    std::vector<linesig::Item> items = {{key, message, signature, ctx}, {key, message, tampered, ctx}, {key, message, signature, other}};
    auto v = engine.verify(items);
    CHECK(v.valid(0) && !v.valid(1) && !v.valid(2) && v.reason(1) == "equation_failed");
    std::printf("leanXMSS: the spec's valid vector, tampered and at another epoch\n");
}

// Aggregation (devnet-4): a proof for two signatures holds for its list, not for the list
// reordered; a bad signature is refused with its index.
static void aggregation() {
    const Buffer seed(32, 4), m0(32, 10), m1(32, 11);
    auto key = linesig::leansig::Key::generate(Scheme::leansig_devnet4, 0, 1, seed);
    const Buffer pk = key.public_key();
    const Buffer s0 = key.sign(0, m0), s1 = key.sign(1, m1);
    std::vector<linesig::leansig::Signer> signers = {{pk, m0, 0, s0}, {pk, m1, 1, s1}};
    const Buffer proof = linesig::leansig::aggregate(Scheme::leansig_devnet4, signers);
    CHECK(linesig::leansig::verify_aggregate(Scheme::leansig_devnet4, signers, proof));
    std::vector<linesig::leansig::Signer> swapped = {signers[1], signers[0]};
    CHECK(!linesig::leansig::verify_aggregate(Scheme::leansig_devnet4, swapped, proof));
    CHECK(thrown_status([&] { linesig::leansig::verify_aggregate(Scheme::leansig_devnet4, signers, Buffer(10)); }) ==
          LINESIG_STATUS_MALFORMED_PROOF);
    Buffer bad = s1;
    bad[bad.size() / 2] ^= 0x40;
    signers[1].signature = bad;
    try {
        linesig::leansig::aggregate(Scheme::leansig_devnet4, signers);
        CHECK(false);
    } catch (const linesig::Error& e) {
        CHECK(e.status() == LINESIG_STATUS_INVALID_ITEM && e.failed_index() == 1);
    }
    std::printf("aggregation: a proof of 2 (%zu bytes) holds for its list only; a bad signature named\n",
                proof.size());
}

// A leanSig key file signs each epoch once: saved inside `sign`, known to every later
// open; never overwritten; a second handle waits for the first's lock.
static void key_file() {
    const Buffer seed(32, 8), msg(32, 3);
    auto key = linesig::leansig::Key::generate(Scheme::leansig_l18, 0, 1024, seed);
    char dir[] = "/tmp/linesig-cpp-XXXXXX";
    CHECK(mkdtemp(dir) != nullptr);
    const std::string path = std::string(dir) + "/k.key";
    linesig::leansig::KeyFile::create(key, path);
    CHECK(thrown_status([&] { linesig::leansig::KeyFile::create(key, path); }) == LINESIG_STATUS_IO_ERROR);
    Buffer sig;
    std::atomic<bool> second_opened{false};
    std::thread second;
    {
        auto file = linesig::leansig::KeyFile::open(Scheme::leansig_l18, path);
        sig = file.sign(7, msg);
        CHECK(file.info().next_epoch == 8);
        second = std::thread([&] {
            auto f = linesig::leansig::KeyFile::open(Scheme::leansig_l18, path);
            second_opened = true;
            CHECK(f.info().next_epoch == 8);
            CHECK(thrown_status([&] { f.sign(7, msg); }) == LINESIG_STATUS_EPOCH_USED);
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        CHECK(!second_opened);  // the first handle still holds the lock
    }
    second.join();
    CHECK(second_opened);
    auto ctx = linesig::leansig::epoch_context(7);
    linesig::Engine lean({.scheme = Scheme::leansig_l18, .workers = 1});
    const Buffer pk = key.public_key();
    std::vector<linesig::Item> one = {{pk, msg, sig, ctx}};
    CHECK(lean.verify(one).all_valid());
    CHECK(thrown_status([&] { linesig::leansig::KeyFile::open(Scheme::leansig_l18, path + ".none"); }) ==
          LINESIG_STATUS_IO_ERROR);
    CHECK(thrown_status([&] { linesig::leansig::KeyFile::open(Scheme::leansig_devnet4, path); }) ==
          LINESIG_STATUS_BAD_KEY);
    std::remove(path.c_str());
    rmdir(dir);
    std::printf("key file: each epoch once across handles, locked, never overwritten\n");
}

static void errors() {
    CHECK(thrown_status([] { linesig::Engine({.workers = 5000}); }) == LINESIG_STATUS_INVALID_CONFIG);
    CHECK(thrown_status([] { linesig::Engine({.scheme = static_cast<Scheme>(99)}); }) == LINESIG_STATUS_INVALID_CONFIG);
    CHECK(thrown_status([] { linesig::mldsa::keygen(Scheme::mldsa44, Buffer(31)); }) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(thrown_status([] { linesig::mldsa::keygen(Scheme::ed25519, Buffer(32)); }) == LINESIG_STATUS_UNKNOWN_SCHEME);
    CHECK(thrown_status([] { linesig::ed25519::sign(Buffer(16), Buffer(1)); }) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(thrown_status([] { linesig::signature_len(static_cast<Scheme>(0)); }) == LINESIG_STATUS_UNKNOWN_SCHEME);
    CHECK(thrown_status([] { linesig::leansig::Key::from_bytes(Scheme::leansig_l18, Buffer(100, 1)); }) ==
          LINESIG_STATUS_BAD_KEY);
    try {
        linesig::mldsa::sign(Scheme::mldsa44, Buffer(10), Buffer(1));
        CHECK(false);
    } catch (const linesig::Error& e) {
        CHECK(std::string(e.what()).find("signing key") != std::string::npos);
    }
    // An empty batch is no call and no error.
    linesig::Engine engine;
    CHECK(engine.verify({}).size() == 0);
    std::printf("errors: every bad call throws linesig::Error with its status and reason\n");
}

int main() {
    std::printf("linesig %s from C++\n", linesig::version().data());
    acvp_keygen();
    wycheproof_verify();
    round_trips();
    leanxmss_vector();
    aggregation();
    key_file();
    errors();
    if (failures != 0) {
        std::fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    std::puts("all C++ checks passed");
    return 0;
}
