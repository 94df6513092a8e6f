/* Keys, signatures and aggregation from C: a leanSig L18 key made, used, saved and
 * loaded back; two devnet-4 signatures (one key, two epochs) aggregated into one proof and the proof checked;
 * an ML-DSA-65 key pair from a seed, a hedged and a deterministic signature; an Ed25519
 * key and signature from a seed; every signature verified by an engine. Build, in
 * crates/linesig-ffi after `cargo build --release -p linesig-ffi` (docs/usage.md, "C"):
 *   cc -I include examples/sign.c ../../target/release/liblinesig_ffi.a -lpthread -ldl -lm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linesig.h"

#define TRY(call) do { int s_ = (call); if (s_ != LINESIG_STATUS_OK) { \
    fprintf(stderr, "%s: %s (%s)\n", #call, linesig_status_message(s_), linesig_last_error_message()); \
    exit(1); } } while (0)

/* Verify one signature with a fresh engine of `scheme`; returns the verdict code. */
static uint8_t verify_one(uint32_t scheme, const uint8_t *pk, size_t pk_len, const uint8_t *msg,
                          size_t msg_len, const uint8_t *sig, size_t sig_len, const uint8_t *ctx,
                          size_t ctx_len) {
    LinesigConfig config = {0};
    config.scheme = scheme;
    LinesigEngine *engine = NULL;
    TRY(linesig_engine_new(&config, &engine));
    LinesigBytes k = {pk, pk_len}, m = {msg, msg_len}, s = {sig, sig_len}, c = {ctx, ctx_len};
    uint8_t verdict = 255;
    TRY(linesig_verify(engine, 1, &k, &m, &s, ctx ? &c : NULL, &verdict));
    linesig_engine_free(engine);
    return verdict;
}

static void epoch_bytes(uint32_t epoch, uint8_t out[4]) {
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(epoch >> (8 * i));
}

int main(void) {
    /* leanSig L18: a key over epochs 0..1024 from a fixed seed. */
    uint8_t seed[32], message[32];
    for (int i = 0; i < 32; i++) { seed[i] = (uint8_t)i; message[i] = (uint8_t)(0xa0 + i); }
    LinesigLeansigKey *key = NULL;
    TRY(linesig_leansig_keygen(LINESIG_SCHEME_LEANSIG_L18, seed, 32, 0, 100, &key));
    LinesigLeansigKeyInfo info;
    TRY(linesig_leansig_key_info(key, &info));
    printf("l18 key: active %llu..%llu, prepared %llu..%llu, next %llu\n",
           (unsigned long long)info.activation_start, (unsigned long long)info.activation_end,
           (unsigned long long)info.prepared_start, (unsigned long long)info.prepared_end,
           (unsigned long long)info.next_epoch);
    size_t pk_len = linesig_public_key_len(LINESIG_SCHEME_LEANSIG_L18);
    size_t sig_len = linesig_signature_len(LINESIG_SCHEME_LEANSIG_L18);
    uint8_t *pk = malloc(pk_len), *sig = malloc(sig_len);
    TRY(linesig_leansig_public_key(key, pk, pk_len));
    TRY(linesig_leansig_sign(key, 7, message, 32, sig, sig_len));
    /* Save the key before the signature leaves: the saved state has epoch 7 used. */
    LinesigBuffer saved = {0};
    TRY(linesig_leansig_key_to_bytes(key, &saved));
    linesig_leansig_key_free(key);
    uint8_t epoch[4];
    epoch_bytes(7, epoch);
    printf("l18 sign epoch 7: %s\n",
           linesig_reason_name(verify_one(LINESIG_SCHEME_LEANSIG_L18, pk, pk_len, message, 32, sig,
                                          sig_len, epoch, 4)));
    TRY(linesig_leansig_key_from_bytes(LINESIG_SCHEME_LEANSIG_L18, saved.ptr, saved.len, &key));
    printf("l18 key saved (%zu bytes) and loaded\n", saved.len);
    linesig_buffer_free(&saved);
    int again = linesig_leansig_sign(key, 7, message, 32, sig, sig_len);
    printf("l18 reloaded key, epoch 7 again: %s\n", linesig_status_message(again));
    TRY(linesig_leansig_sign(key, 8, message, 32, sig, sig_len));
    epoch_bytes(8, epoch);
    printf("l18 reloaded key, epoch 8: %s\n",
           linesig_reason_name(verify_one(LINESIG_SCHEME_LEANSIG_L18, pk, pk_len, message, 32, sig,
                                          sig_len, epoch, 4)));
    linesig_leansig_key_free(key);
    free(pk);
    free(sig);

    /* devnet-4: one key signs two epochs; one proof for both signatures. */
    uint32_t d4 = LINESIG_SCHEME_LEANSIG_DEVNET4;
    size_t d4_pk = linesig_public_key_len(d4), d4_sig = linesig_signature_len(d4);
    uint8_t *keys = malloc(d4_pk), *sigs = malloc(2 * d4_sig);
    uint32_t epochs[2] = {3, 4};
    LinesigBytes pks[2], msgs[2], sigv[2];
    TRY(linesig_leansig_keygen(d4, seed, 32, 0, 1, &key));
    TRY(linesig_leansig_public_key(key, keys, d4_pk));
    for (int i = 0; i < 2; i++) {
        TRY(linesig_leansig_sign(key, epochs[i], message, 32, sigs + i * d4_sig, d4_sig));
        pks[i] = (LinesigBytes){keys, d4_pk};
        msgs[i] = (LinesigBytes){message, 32};
        sigv[i] = (LinesigBytes){sigs + i * d4_sig, d4_sig};
    }
    linesig_leansig_key_free(key);
    LinesigBuffer proof = {0};
    size_t failed = 0;
    TRY(linesig_leansig_aggregate(d4, 2, pks, msgs, epochs, sigv, &proof, &failed));
    int checked = linesig_leansig_verify_aggregate(d4, 2, pks, msgs, epochs, proof.ptr, proof.len, &failed);
    printf("devnet4 aggregate of 2: %zu-byte proof, verify: %s\n", proof.len,
           linesig_status_message(checked));
    epochs[1] = 5; /* another list: the proof must not hold for it */
    int other = linesig_leansig_verify_aggregate(d4, 2, pks, msgs, epochs, proof.ptr, proof.len, &failed);
    printf("devnet4 aggregate against another epoch: %s\n", linesig_status_message(other));
    linesig_buffer_free(&proof);
    free(keys);
    free(sigs);

    /* ML-DSA-65 from a seed: hedged and deterministic, with a context. */
    uint32_t m65 = LINESIG_SCHEME_MLDSA65;
    size_t m_pk = linesig_public_key_len(m65), m_sk = linesig_mldsa_signing_key_len(m65);
    size_t m_sig = linesig_signature_len(m65);
    uint8_t *mpk = malloc(m_pk), *msk = malloc(m_sk), *msig = malloc(m_sig), *msig2 = malloc(m_sig);
    const uint8_t ctx[] = "linesig example";
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(7 * i + 1); /* use fresh randomness in real use */
    TRY(linesig_mldsa_keygen(m65, seed, 32, mpk, m_pk, msk, m_sk));
    TRY(linesig_mldsa_sign(m65, msk, m_sk, message, 32, ctx, sizeof ctx - 1, rnd, 32, msig, m_sig));
    printf("mldsa65 hedged: %s\n",
           linesig_reason_name(verify_one(m65, mpk, m_pk, message, 32, msig, m_sig, ctx, sizeof ctx - 1)));
    TRY(linesig_mldsa_sign(m65, msk, m_sk, message, 32, ctx, sizeof ctx - 1, NULL, 0, msig, m_sig));
    TRY(linesig_mldsa_sign(m65, msk, m_sk, message, 32, ctx, sizeof ctx - 1, NULL, 0, msig2, m_sig));
    printf("mldsa65 deterministic: %s, repeatable: %s\n",
           linesig_reason_name(verify_one(m65, mpk, m_pk, message, 32, msig, m_sig, ctx, sizeof ctx - 1)),
           memcmp(msig, msig2, m_sig) == 0 ? "yes" : "no");
    free(mpk);
    free(msk);
    free(msig);
    free(msig2);

    /* Ed25519 from a seed (RFC 8032, deterministic). */
    uint8_t epk[32], esig[64];
    TRY(linesig_ed25519_public_key(seed, 32, epk, sizeof epk));
    TRY(linesig_ed25519_sign(seed, 32, message, 32, esig, sizeof esig));
    printf("ed25519: %s\n", linesig_reason_name(verify_one(LINESIG_SCHEME_ED25519, epk, 32, message, 32, esig, 64, NULL, 0)));
    return again == LINESIG_STATUS_EPOCH_USED && checked == LINESIG_STATUS_OK &&
                   other == LINESIG_STATUS_PROOF_REJECTED
               ? 0
               : 1;
}
