/* Every misuse the C ABI can detect comes back as a status code, never a crash. */
#include <stdio.h>
#include "linesig.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

int main(void) {
    LinesigEngine *engine = (LinesigEngine *)1;
    LinesigConfig config = {0};
    CHECK(linesig_engine_new(NULL, &engine) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_engine_new(&config, NULL) == LINESIG_STATUS_NULL_POINTER);

    config.scheme = 99;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && engine == NULL);
    config.scheme = LINESIG_SCHEME_MLDSA44;
    config.policy = 1;                              /* ML-DSA has no policies */
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG);
    config.policy = 0;
    config.backend = 7;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG);
    config.backend = 0;
    config.scheme = LINESIG_SCHEME_ED25519;
    config.key_cache_bytes = 1000;                  /* too small for one key's table */
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && engine == NULL);
    config.key_cache_bytes = 0;
    config.scheme = LINESIG_SCHEME_MLDSA44;
    config.workers = 2;
    config.batch_size = 3;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_OK && engine != NULL);

    uint8_t verdicts[2];
    uint8_t key[1312] = {0};
    LinesigBytes keys[2] = {{key, sizeof key}, {key, 5}};
    LinesigBytes msgs[2] = {{NULL, 0}, {NULL, 0}};
    LinesigBytes sigs[2] = {{key, 16}, {key, 16}};
    LinesigBytes null_field[2] = {{NULL, 4}, {NULL, 0}};
    CHECK(linesig_verify(NULL, 2, keys, msgs, sigs, NULL, verdicts) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_verify(engine, 2, keys, msgs, sigs, NULL, NULL) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_verify(engine, 2, keys, null_field, sigs, NULL, verdicts) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_verify(engine, 0, NULL, NULL, NULL, NULL, NULL) == LINESIG_STATUS_OK);
    CHECK(linesig_verify(engine, 2, keys, msgs, sigs, NULL, verdicts) == LINESIG_STATUS_OK);
    CHECK(verdicts[0] == 1 && verdicts[1] == 1);    /* bad_length: ML-DSA-44 signatures are 2420 bytes */
    linesig_engine_free(engine);
    linesig_engine_free(NULL);
    puts("all error paths ok");
    return 0;
}
