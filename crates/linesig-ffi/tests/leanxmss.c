/* leanXMSS through C: the key the spec's key_gen_epoch_zero vector grows (seed 00..1f,
 * epochs 0..3) has the vector's public key, signs the verify_valid vector's signature at
 * epoch 2 (its first bytes checked here; every byte in the Rust tests), which the engine
 * accepts and refuses tampered or at another epoch; then each misuse is its status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "linesig.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d; last error: %s)\n", \
    #cond, __LINE__, linesig_last_error_message()); return 1; } } while (0)

static const uint8_t VECTOR_PUBLIC_KEY[32] = {
    0xfe, 0xbc, 0x36, 0x5e, 0x0b, 0x1f, 0x38, 0xbd, 0x16, 0xac, 0xba, 0x8d, 0x13, 0xd2, 0x91, 0x5f,
    0xc4, 0x87, 0xed, 0x3a, 0xef, 0x72, 0x01, 0xc0, 0x95, 0xbf, 0x4c, 0x74, 0xaa, 0xd6, 0xb6, 0xe3};
static const uint8_t VECTOR_SIGNATURE_START[8] = {0x96, 0xa5, 0x58, 0xca, 0x6a, 0x9a, 0x79, 0x0b};

static int verify_one(LinesigEngine *engine, const uint8_t *pk, const uint8_t *msg, const uint8_t *sig,
                      uint32_t epoch, uint8_t *verdict) {
    uint8_t ctx[4] = {(uint8_t)epoch, (uint8_t)(epoch >> 8), (uint8_t)(epoch >> 16), (uint8_t)(epoch >> 24)};
    LinesigBytes k = {pk, 32}, m = {msg, 32}, s = {sig, 1208}, c = {ctx, 4};
    return linesig_verify(engine, 1, &k, &m, &s, &c, verdict);
}

int main(void) {
    uint8_t seed[32], msg[32], pk[32], sig[1208], again[1208];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)i;
    memset(msg, 0x11, sizeof msg);
    CHECK(linesig_public_key_len(LINESIG_SCHEME_LEANXMSS) == 32 && linesig_signature_len(LINESIG_SCHEME_LEANXMSS) == 1208);
    CHECK(strcmp(linesig_scheme_name(LINESIG_SCHEME_LEANXMSS), "leanxmss") == 0);

    LinesigLeanxmssKey *key = NULL;
    CHECK(linesig_leanxmss_keygen(seed, 32, 0, 3, &key) == LINESIG_STATUS_OK);
    CHECK(linesig_leanxmss_public_key(key, pk, 32) == LINESIG_STATUS_OK && memcmp(pk, VECTOR_PUBLIC_KEY, 32) == 0);
    CHECK(linesig_leanxmss_sign(key, 2, msg, 32, sig, sizeof sig) == LINESIG_STATUS_OK);
    CHECK(memcmp(sig, VECTOR_SIGNATURE_START, sizeof VECTOR_SIGNATURE_START) == 0);

    LinesigConfig config = {0};
    config.scheme = LINESIG_SCHEME_LEANXMSS;
    LinesigEngine *engine = NULL;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_OK);
    uint8_t verdict = 0xff;
    CHECK(verify_one(engine, pk, msg, sig, 2, &verdict) == LINESIG_STATUS_OK && verdict == 0);
    CHECK(verify_one(engine, pk, msg, sig, 3, &verdict) == LINESIG_STATUS_OK && verdict != 0);
    sig[100] ^= 4;
    CHECK(verify_one(engine, pk, msg, sig, 2, &verdict) == LINESIG_STATUS_OK &&
          strcmp(linesig_reason_name(verdict), "equation_failed") == 0);
    linesig_engine_free(engine);

    /* Each epoch once, across the key's bytes. */
    CHECK(linesig_leanxmss_sign(key, 2, msg, 32, again, sizeof again) == LINESIG_STATUS_EPOCH_USED);
    CHECK(linesig_leanxmss_sign(key, 4, msg, 32, again, sizeof again) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE);
    CHECK(linesig_leanxmss_sign(key, 3, msg, 31, again, sizeof again) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_leanxmss_sign(key, 3, msg, 32, again, 1207) == LINESIG_STATUS_BAD_LENGTH);
    LinesigBuffer saved = {0};
    CHECK(linesig_leanxmss_key_to_bytes(key, &saved) == LINESIG_STATUS_OK && saved.len == 72);
    LinesigLeanxmssKey *loaded = NULL;
    CHECK(linesig_leanxmss_key_from_bytes(saved.ptr, saved.len, &loaded) == LINESIG_STATUS_OK);
    LinesigLeanxmssKeyInfo info = {0};
    CHECK(linesig_leanxmss_key_info(loaded, &info) == LINESIG_STATUS_OK && info.next_epoch == 3 && info.epoch_end == 3);
    CHECK(linesig_leanxmss_sign(loaded, 2, msg, 32, again, sizeof again) == LINESIG_STATUS_EPOCH_USED);
    saved.ptr[20] ^= 1;
    LinesigLeanxmssKey *damaged = (LinesigLeanxmssKey *)1;
    CHECK(linesig_leanxmss_key_from_bytes(saved.ptr, saved.len, &damaged) == LINESIG_STATUS_BAD_KEY && damaged == NULL);
    linesig_buffer_free(&saved);
    CHECK(linesig_leanxmss_keygen(seed, 32, 5, 4, &damaged) == LINESIG_STATUS_EPOCH_OUT_OF_RANGE && damaged == NULL);
    CHECK(linesig_leanxmss_keygen(seed, 31, 0, 4, &damaged) == LINESIG_STATUS_BAD_LENGTH);
    CHECK(linesig_leanxmss_keygen(seed, 32, 0, 4, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_leanxmss_public_key(NULL, pk, 32) == LINESIG_STATUS_NULL_POINTER);

    /* A key file: created once, signs, keeps the epoch used for the next handle. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/linesig-leanxmss-c-%d.key", (int)getpid());
    remove(path);
    CHECK(linesig_leanxmss_key_file_create(loaded, path) == LINESIG_STATUS_OK);
    CHECK(linesig_leanxmss_key_file_create(loaded, path) == LINESIG_STATUS_IO_ERROR);
    LinesigLeanxmssKeyFile *file = NULL;
    CHECK(linesig_leanxmss_key_file_open(path, &file) == LINESIG_STATUS_OK);
    CHECK(linesig_leanxmss_key_file_sign(file, 3, msg, 32, again, sizeof again) == LINESIG_STATUS_OK);
    linesig_leanxmss_key_file_close(file);
    CHECK(linesig_leanxmss_key_file_open(path, &file) == LINESIG_STATUS_OK);
    CHECK(linesig_leanxmss_key_file_info(file, &info) == LINESIG_STATUS_OK && info.next_epoch == 4);
    CHECK(linesig_leanxmss_key_file_sign(file, 3, msg, 32, again, sizeof again) == LINESIG_STATUS_EPOCH_USED);
    linesig_leanxmss_key_file_close(file);
    remove(path);

    linesig_leanxmss_key_free(loaded);
    linesig_leanxmss_key_free(key);
    puts("leanXMSS from C: the spec's key and signature, verdicts, each epoch once");
    return 0;
}
