/* Every misuse of the key, signing and aggregation calls comes back as its status code
 * with a reason, never a crash. The engine's own error paths are in errors.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linesig.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d; last error: %s)\n", \
    #cond, __LINE__, linesig_last_error_message()); return 1; } } while (0)
#define SAYS(text) (strstr(linesig_last_error_message(), (text)) != NULL)

enum { L18 = LINESIG_SCHEME_LEANSIG_L18, D4 = LINESIG_SCHEME_LEANSIG_DEVNET4, M44 = LINESIG_SCHEME_MLDSA44 };

int main(void) {
    uint8_t seed[32] = {1}, msg[32] = {2};
    LinesigLeansigKey *key = (LinesigLeansigKey *)1;

    /* Key generation. */
    CHECK(linesig_leansig_keygen(42, seed, 32, 0, 10, &key) == LINESIG_STATUS_UNKNOWN_SCHEME && key == NULL);
    CHECK(SAYS("unknown scheme number 42"));
    CHECK(linesig_leansig_keygen(M44, seed, 32, 0, 10, &key) == LINESIG_STATUS_UNKNOWN_SCHEME && SAYS("not leanSig"));
    CHECK(linesig_leansig_keygen(L18, seed, 31, 0, 10, &key) == LINESIG_STATUS_BAD_LENGTH && SAYS("seed"));
    CHECK(linesig_leansig_keygen(L18, NULL, 32, 0, 10, &key) == LINESIG_STATUS_NULL_POINTER && SAYS("seed"));
    CHECK(linesig_leansig_keygen(L18, seed, 32, 0, 10, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_keygen(L18, seed, 32, 0, 0, &key) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE);
    CHECK(linesig_leansig_keygen(L18, seed, 32, 1u << 18, 1, &key) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE && SAYS("lifetime"));
    CHECK(linesig_leansig_keygen(L18, seed, 32, UINT64_MAX, 2, &key) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE);
    CHECK(linesig_leansig_keygen(L18, seed, 32, 0, 10, &key) == LINESIG_STATUS_OK && key != NULL);
    CHECK(strcmp(linesig_last_error_message(), "") == 0);

    /* Public key, info, signing. */
    uint8_t pk[48], sig[2332];
    LinesigLeansigKeyInfo info;
    CHECK(linesig_leansig_public_key(NULL, pk, 48) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_public_key(key, NULL, 48) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_public_key(key, pk, 52) == LINESIG_STATUS_BAD_LENGTH && SAYS("48"));
    CHECK(linesig_leansig_key_info(key, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_key_info(NULL, &info) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_sign(NULL, 1, msg, 32, sig, sizeof sig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_sign(key, 1, msg, 31, sig, sizeof sig) == LINESIG_STATUS_BAD_LENGTH && SAYS("message"));
    CHECK(linesig_leansig_sign(key, 1, NULL, 32, sig, sizeof sig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_sign(key, 1, msg, 32, sig, 2331) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_leansig_sign(key, 1, msg, 32, NULL, sizeof sig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_sign(key, 5000, msg, 32, sig, sizeof sig) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE && SAYS("active"));
    CHECK(linesig_leansig_sign(key, 10, msg, 32, sig, sizeof sig) == LINESIG_STATUS_OK);
    CHECK(linesig_leansig_sign(key, 10, msg, 32, sig, sizeof sig) == LINESIG_STATUS_EPOCH_USED && SAYS("at most once"));
    CHECK(linesig_leansig_sign(key, 9, msg, 32, sig, sizeof sig) == LINESIG_STATUS_EPOCH_USED);
    bool moved = true;
    CHECK(linesig_leansig_advance_preparation(NULL, &moved) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_advance_preparation(key, &moved) == LINESIG_STATUS_OK && !moved); /* two trees: nowhere to go */
    CHECK(linesig_leansig_advance_preparation(key, NULL) == LINESIG_STATUS_OK);

    /* Saved bytes: every damage a typed error; a reloaded key keeps its used epochs. */
    LinesigBuffer saved = {0};
    CHECK(linesig_leansig_key_to_bytes(key, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_key_to_bytes(NULL, &saved) == LINESIG_STATUS_NULL_POINTER && saved.ptr == NULL);
    CHECK(linesig_leansig_key_to_bytes(key, &saved) == LINESIG_STATUS_OK && saved.len > 1000);
    LinesigLeansigKey *loaded = (LinesigLeansigKey *)1;
    CHECK(linesig_leansig_key_from_bytes(L18, saved.ptr, saved.len - 1, &loaded) == LINESIG_STATUS_BAD_KEY && loaded == NULL && SAYS("truncated"));
    CHECK(linesig_leansig_key_from_bytes(L18, saved.ptr, 3, &loaded) == LINESIG_STATUS_BAD_KEY && SAYS("not a linesig"));
    CHECK(linesig_leansig_key_from_bytes(L18, NULL, 0, &loaded) == LINESIG_STATUS_BAD_KEY);
    CHECK(linesig_leansig_key_from_bytes(L18, NULL, 10, &loaded) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_key_from_bytes(L18, saved.ptr, saved.len, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_key_from_bytes(D4, saved.ptr, saved.len, &loaded) == LINESIG_STATUS_BAD_KEY && SAYS("leansig-l18"));
    CHECK(linesig_leansig_key_from_bytes(M44, saved.ptr, saved.len, &loaded) == LINESIG_STATUS_UNKNOWN_SCHEME);
    saved.ptr[saved.len / 2] ^= 1;
    CHECK(linesig_leansig_key_from_bytes(L18, saved.ptr, saved.len, &loaded) == LINESIG_STATUS_BAD_KEY);
    saved.ptr[saved.len / 2] ^= 1;
    uint8_t foreign[4096];
    for (size_t i = 0; i < sizeof foreign; i++) foreign[i] = (uint8_t)(i * 31);
    CHECK(linesig_leansig_key_from_bytes(L18, foreign, sizeof foreign, &loaded) == LINESIG_STATUS_BAD_KEY);
    CHECK(linesig_leansig_key_from_bytes(L18, saved.ptr, saved.len, &loaded) == LINESIG_STATUS_OK && loaded != NULL);
    CHECK(linesig_leansig_sign(loaded, 10, msg, 32, sig, sizeof sig) == LINESIG_STATUS_EPOCH_USED);
    CHECK(linesig_leansig_sign(loaded, 11, msg, 32, sig, sizeof sig) == LINESIG_STATUS_OK);
    linesig_buffer_free(&saved);
    CHECK(saved.ptr == NULL && saved.len == 0);
    linesig_buffer_free(&saved); /* twice: a zeroed buffer is ignored */
    linesig_buffer_free(NULL);

    /* Aggregation: the list's shape, the scheme, a signature that fails, a bad proof. */
    CHECK(linesig_leansig_public_key(loaded, pk, 48) == LINESIG_STATUS_OK);
    LinesigBytes keys[2] = {{pk, 48}, {pk, 48}}, msgs[2] = {{msg, 32}, {msg, 32}};
    LinesigBytes sigs[2] = {{sig, sizeof sig}, {sig, sizeof sig}};
    uint32_t epochs[2] = {11, 11};
    LinesigBuffer proof = {0};
    size_t failed = 0;
    CHECK(linesig_leansig_aggregate(D4, 2, keys, msgs, epochs, sigs, NULL, &failed) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_aggregate(D4, 2, NULL, msgs, epochs, sigs, &proof, &failed) == LINESIG_STATUS_NULL_POINTER && SAYS("public_keys"));
    CHECK(linesig_leansig_aggregate(D4, 2, keys, msgs, NULL, sigs, &proof, &failed) == LINESIG_STATUS_NULL_POINTER && SAYS("epochs"));
    CHECK(linesig_leansig_aggregate(D4, 0, NULL, NULL, NULL, NULL, &proof, &failed) == LINESIG_STATUS_BAD_LENGTH && failed == SIZE_MAX);
    CHECK(linesig_leansig_aggregate(L18, 2, keys, msgs, epochs, sigs, &proof, &failed) == LINESIG_STATUS_UNKNOWN_SCHEME && SAYS("only leansig-devnet4"));
    CHECK(linesig_leansig_aggregate(7000, 2, keys, msgs, epochs, sigs, &proof, &failed) == LINESIG_STATUS_UNKNOWN_SCHEME);
    LinesigBytes holey[2] = {{pk, 48}, {NULL, 48}};
    CHECK(linesig_leansig_aggregate(D4, 2, holey, msgs, epochs, sigs, &proof, &failed) == LINESIG_STATUS_NULL_POINTER && SAYS("public_keys[1]"));
    /* L18 bytes under devnet-4: the first signer already fails. */
    CHECK(linesig_leansig_aggregate(D4, 2, keys, msgs, epochs, sigs, &proof, &failed) == LINESIG_STATUS_INVALID_ITEM && failed == 0 && proof.ptr == NULL);
    CHECK(linesig_leansig_aggregate(D4, 2, keys, msgs, epochs, sigs, &proof, NULL) == LINESIG_STATUS_INVALID_ITEM);
    uint8_t junk[64] = {0};
    CHECK(linesig_leansig_verify_aggregate(D4, 2, keys, msgs, epochs, junk, sizeof junk, &failed) == LINESIG_STATUS_INVALID_ITEM && failed == 0);
    uint8_t d4_pk[52] = {0};
    LinesigBytes d4_keys[2] = {{d4_pk, 52}, {d4_pk, 51}};
    CHECK(linesig_leansig_verify_aggregate(D4, 2, d4_keys, msgs, epochs, junk, sizeof junk, &failed) == LINESIG_STATUS_INVALID_ITEM && failed == 1);
    d4_keys[1].len = 52;
    CHECK(linesig_leansig_verify_aggregate(D4, 2, d4_keys, msgs, epochs, junk, sizeof junk, &failed) == LINESIG_STATUS_MALFORMED_PROOF && failed == SIZE_MAX);
    CHECK(linesig_leansig_verify_aggregate(D4, 2, d4_keys, msgs, epochs, NULL, 5, &failed) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leansig_verify_aggregate(D4, 9000, NULL, NULL, NULL, junk, 0, &failed) == LINESIG_STATUS_BAD_LENGTH && SAYS("8192"));
    CHECK(linesig_leansig_aggregate(D4, 9000, NULL, NULL, NULL, NULL, &proof, &failed) == LINESIG_STATUS_BAD_LENGTH);
    linesig_leansig_key_free(loaded);
    linesig_leansig_key_free(key);
    linesig_leansig_key_free(NULL);

    /* ML-DSA. */
    uint8_t mpk[1312], msk[2560], msig[2420], rnd[32] = {3}, ctx[256] = {0};
    CHECK(linesig_mldsa_signing_key_len(M44) == sizeof msk && linesig_mldsa_signing_key_len(L18) == 0);
    CHECK(linesig_mldsa_keygen(L18, seed, 32, mpk, sizeof mpk, msk, sizeof msk) == LINESIG_STATUS_UNKNOWN_SCHEME && SAYS("not ML-DSA"));
    CHECK(linesig_mldsa_keygen(99, seed, 32, mpk, sizeof mpk, msk, sizeof msk) == LINESIG_STATUS_UNKNOWN_SCHEME);
    CHECK(linesig_mldsa_keygen(M44, seed, 16, mpk, sizeof mpk, msk, sizeof msk) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_mldsa_keygen(M44, NULL, 32, mpk, sizeof mpk, msk, sizeof msk) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_mldsa_keygen(M44, seed, 32, mpk, 1952, msk, sizeof msk) == LINESIG_STATUS_BAD_LENGTH && SAYS("1312"));
    CHECK(linesig_mldsa_keygen(M44, seed, 32, mpk, sizeof mpk, NULL, sizeof msk) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_mldsa_keygen(M44, seed, 32, mpk, sizeof mpk, msk, sizeof msk) == LINESIG_STATUS_OK);
    CHECK(linesig_mldsa_sign(M44, msk, 100, msg, 32, NULL, 0, NULL, 0, msig, sizeof msig) == LINESIG_STATUS_BAD_LENGTH && SAYS("signing key"));
    CHECK(linesig_mldsa_sign(M44, NULL, sizeof msk, msg, 32, NULL, 0, NULL, 0, msig, sizeof msig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_mldsa_sign(M44, msk, sizeof msk, msg, 32, ctx, 256, NULL, 0, msig, sizeof msig) == LINESIG_STATUS_BAD_LENGTH && SAYS("255"));
    CHECK(linesig_mldsa_sign(M44, msk, sizeof msk, msg, 32, NULL, 0, rnd, 31, msig, sizeof msig) == LINESIG_STATUS_BAD_LENGTH && SAYS("randomness"));
    CHECK(linesig_mldsa_sign(M44, msk, sizeof msk, msg, 32, NULL, 0, NULL, 32, msig, sizeof msig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_mldsa_sign(M44, msk, sizeof msk, msg, 32, NULL, 0, NULL, 0, msig, 2419) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_mldsa_sign(M44, msk, sizeof msk, NULL, 0, ctx, 255, rnd, 32, msig, sizeof msig) == LINESIG_STATUS_OK);
    CHECK(linesig_mldsa_sign(D4, msk, sizeof msk, msg, 32, NULL, 0, NULL, 0, msig, sizeof msig) == LINESIG_STATUS_UNKNOWN_SCHEME);

    /* Ed25519: RFC 8032's first test vector (§7.1, TEST 1), then the error paths. */
    static const uint8_t rfc_seed[32] = {
        0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4,
        0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60};
    static const uint8_t rfc_pk_head[4] = {0xd7, 0x5a, 0x98, 0x01}, rfc_sig_head[4] = {0xe5, 0x56, 0x43, 0x00};
    uint8_t epk[32], esig[64];
    CHECK(linesig_ed25519_public_key(rfc_seed, 32, epk, sizeof epk) == LINESIG_STATUS_OK && memcmp(epk, rfc_pk_head, 4) == 0);
    CHECK(linesig_ed25519_sign(rfc_seed, 32, NULL, 0, esig, sizeof esig) == LINESIG_STATUS_OK && memcmp(esig, rfc_sig_head, 4) == 0);
    CHECK(linesig_ed25519_public_key(rfc_seed, 31, epk, sizeof epk) == LINESIG_STATUS_BAD_LENGTH && SAYS("seed"));
    CHECK(linesig_ed25519_public_key(NULL, 32, epk, sizeof epk) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_ed25519_public_key(rfc_seed, 32, epk, 33) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_ed25519_sign(rfc_seed, 32, NULL, 5, esig, sizeof esig) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_ed25519_sign(rfc_seed, 32, msg, 32, esig, 63) == LINESIG_STATUS_BAD_LENGTH && SAYS("signature"));
    CHECK(linesig_ed25519_sign(rfc_seed, 32, msg, 32, NULL, 64) == LINESIG_STATUS_NULL_POINTER);

    /* Sizes and names of unknown schemes. */
    CHECK(linesig_public_key_len(0) == 0 && linesig_signature_len(9) == 0);
    CHECK(strcmp(linesig_scheme_name(9), "unknown") == 0);
    CHECK(strcmp(linesig_status_message(LINESIG_STATUS_EPOCH_USED), "epoch already signed") == 0);
    puts("all signing error paths ok");
    return 0;
}
