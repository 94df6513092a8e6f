// The founding Dilithium benchmark in C++ (google-benchmark), through linesig.hpp:
// keygen, sign (32-byte messages) and verify at ML-DSA-44, -65 and -87, one call at a
// time on one thread as the founding program ran them; then batch verification on all
// cores (1,024 ML-DSA-44 signatures per call) and an Ed25519 batch of the same size.
//
//   founding_bench [--benchmark_min_time=0.05] [--benchmark_format=json] ...
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "linesig.hpp"

using linesig::Buffer;
using linesig::Scheme;

namespace {

constexpr uint32_t kSignMessages = 1024;

// Seeded inputs (crates/linesig-ffi/examples/founding_cpp_twin.rs makes the same): key i
// from seed i, message i's bytes from i, so every run measures the
// same work.
Buffer seed_of(uint32_t i) {
    Buffer seed(32, 0);
    for (int b = 0; b < 4; b++) seed[b] = static_cast<uint8_t>(i >> (8 * b));
    seed[31] = 0x5e;
    return seed;
}

Buffer message_of(uint32_t i, size_t len) {
    Buffer msg(len);
    for (size_t b = 0; b < len; b++) msg[b] = static_cast<uint8_t>(i * 131 + b * 7);
    return msg;
}

void keygen(benchmark::State& state, Scheme s) {
    uint32_t i = 0;
    for (auto _ : state) {
        auto pair = linesig::mldsa::keygen(s, seed_of(i++));
        benchmark::DoNotOptimize(pair.public_key.data());
    }
}

// Signing time depends on the message (FIPS 204's rejection loop runs a message-
// dependent number of times), so the row cycles through 1,024 messages for a mean
// that does not hang on one.
void sign(benchmark::State& state, Scheme s) {
    auto pair = linesig::mldsa::keygen(s, seed_of(1));
    std::vector<Buffer> msgs;
    for (uint32_t i = 0; i < kSignMessages; i++) msgs.push_back(message_of(i, static_cast<size_t>(state.range(0))));
    uint32_t i = 0;
    for (auto _ : state) {
        // Deterministic (FIPS 204 §3.4): the same work for the same message every run.
        auto sig = linesig::mldsa::sign(s, pair.signing_key, msgs[i++ % kSignMessages]);
        benchmark::DoNotOptimize(sig.data());
    }
}

// Verification one signature per call, on an engine of one worker.
void verify(benchmark::State& state, Scheme s) {
    auto pair = linesig::mldsa::keygen(s, seed_of(1));
    const Buffer msg = message_of(1, static_cast<size_t>(state.range(0)));
    const Buffer sig = linesig::mldsa::sign(s, pair.signing_key, msg);
    linesig::Engine engine({.scheme = s, .workers = 1});
    const linesig::Item item{pair.public_key, msg, sig};
    for (auto _ : state) {
        auto v = engine.verify({&item, 1});
        if (!v.all_valid()) state.SkipWithError("a valid signature was rejected");
    }
}

// A batch of `range(0)` signatures (4 per key, 32-byte messages) per call on all cores;
// items/s is signatures per second.
struct Batch {
    std::vector<Buffer> keys, msgs, sigs;
    std::vector<linesig::Item> items;
};

Batch mldsa_batch(Scheme s, size_t n) {
    Batch b;
    std::vector<Buffer> signing;
    for (uint32_t i = 0; i < n; i++) {
        if (i % 4 == 0) {
            auto pair = linesig::mldsa::keygen(s, seed_of(i / 4));
            b.keys.push_back(std::move(pair.public_key));
            signing.push_back(std::move(pair.signing_key));
        }
        b.msgs.push_back(message_of(i, 32));
        b.sigs.push_back(linesig::mldsa::sign(s, signing[i / 4], b.msgs[i]));
    }
    for (uint32_t i = 0; i < n; i++) b.items.push_back({b.keys[i / 4], b.msgs[i], b.sigs[i]});
    return b;
}

Batch ed25519_batch(size_t n) {
    Batch b;
    std::vector<Buffer> seeds;
    for (uint32_t i = 0; i < n; i++) {
        if (i % 4 == 0) {
            seeds.push_back(seed_of(i / 4));
            b.keys.push_back(linesig::ed25519::public_key(seeds.back()));
        }
        b.msgs.push_back(message_of(i, 32));
        b.sigs.push_back(linesig::ed25519::sign(seeds[i / 4], b.msgs[i]));
    }
    for (uint32_t i = 0; i < n; i++) b.items.push_back({b.keys[i / 4], b.msgs[i], b.sigs[i]});
    return b;
}

void verify_batch(benchmark::State& state, Scheme s) {
    const size_t n = static_cast<size_t>(state.range(0));
    const Batch b = s == Scheme::ed25519 ? ed25519_batch(n) : mldsa_batch(s, n);
    linesig::Engine engine({.scheme = s});
    std::vector<double> seconds;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        auto v = engine.verify(b.items);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (!v.all_valid()) state.SkipWithError("a valid signature was rejected");
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.SetLabel(std::string(engine.backend()));
    // items/s is the mean over the calls, which one preempted call on a shared machine
    // pulls down; the median call is what `linesig bench` reports, so it is here too.
    if (!seconds.empty()) {
        std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
        state.counters["median_items_per_second"] = static_cast<double>(n) / seconds[seconds.size() / 2];
    }
}

}  // namespace

BENCHMARK_CAPTURE(keygen, mldsa44_keygen, Scheme::mldsa44)->Name("mldsa44_keygen");
BENCHMARK_CAPTURE(sign, mldsa44_sign, Scheme::mldsa44)->Name("mldsa44_sign")->Arg(32);
BENCHMARK_CAPTURE(verify, mldsa44_verify, Scheme::mldsa44)->Name("mldsa44_verify")->Arg(32);
BENCHMARK_CAPTURE(keygen, mldsa65_keygen, Scheme::mldsa65)->Name("mldsa65_keygen");
BENCHMARK_CAPTURE(sign, mldsa65_sign, Scheme::mldsa65)->Name("mldsa65_sign")->Arg(32);
BENCHMARK_CAPTURE(verify, mldsa65_verify, Scheme::mldsa65)->Name("mldsa65_verify")->Arg(32);
BENCHMARK_CAPTURE(keygen, mldsa87_keygen, Scheme::mldsa87)->Name("mldsa87_keygen");
BENCHMARK_CAPTURE(sign, mldsa87_sign, Scheme::mldsa87)->Name("mldsa87_sign")->Arg(32);
BENCHMARK_CAPTURE(verify, mldsa87_verify, Scheme::mldsa87)->Name("mldsa87_verify")->Arg(32);
BENCHMARK_CAPTURE(verify_batch, mldsa44_verify_batch, Scheme::mldsa44)
    ->Name("mldsa44_verify_batch")
    ->Arg(1024)
    ->UseRealTime();
BENCHMARK_CAPTURE(verify_batch, ed25519_verify_batch, Scheme::ed25519)
    ->Name("ed25519_verify_batch")
    ->Arg(1024)
    ->UseRealTime();

BENCHMARK_MAIN();
