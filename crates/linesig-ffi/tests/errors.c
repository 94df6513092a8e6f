/* Every misuse the C ABI can detect comes back as a status code, never a crash. */
#include <stdio.h>
#include <string.h>
#include "linesig.h"

#define SAYS(text) (strstr(linesig_last_error_message(), (text)) != NULL)
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "failed: %s (line %d)\n", #cond, __LINE__); return 1; } } while (0)

int main(void) {
    LinesigEngine *engine = (LinesigEngine *)1;
    LinesigConfig config = {0};
    CHECK(linesig_engine_new(NULL, &engine) == LINESIG_STATUS_NULL_POINTER);
    CHECK(linesig_engine_new(&config, NULL) == LINESIG_STATUS_NULL_POINTER);

    config.scheme = 99;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && engine == NULL);
    CHECK(SAYS("unknown scheme number 99"));        /* the reason, not just the kind */
    config.scheme = LINESIG_SCHEME_MLDSA44;
    config.policy = 1;                              /* ML-DSA has no policies */
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG);
    CHECK(SAYS("policy 1 is an Ed25519 policy; mldsa44 takes none"));
    config.policy = 0;
    config.backend = 7;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && SAYS("backend number 7"));
    config.scheme = LINESIG_SCHEME_ED25519;
    config.backend = 0;
    config.policy = 3;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && SAYS("policy number 3"));
    config.policy = 0;
    config.workers = 5000;
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && SAYS("at most 1024"));
    config.workers = 0;
    config.backend = 0;
    config.scheme = LINESIG_SCHEME_ED25519;
    config.key_cache_bytes = 1000;                  /* too small for one key's table */
    CHECK(linesig_engine_new(&config, &engine) == LINESIG_STATUS_INVALID_CONFIG && engine == NULL);
    CHECK(SAYS("a key cache of 1000 bytes holds no key table"));
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
    CHECK(SAYS("messages[0] has a null pointer and length 4"));
    CHECK(linesig_verify(engine, 0, NULL, NULL, NULL, NULL, NULL) == LINESIG_STATUS_OK);
    CHECK(linesig_verify(engine, 2, keys, msgs, sigs, NULL, verdicts) == LINESIG_STATUS_OK);
    CHECK(strcmp(linesig_last_error_message(), "") == 0);
    CHECK(verdicts[0] == 1 && verdicts[1] == 1);    /* bad_length: ML-DSA-44 signatures are 2420 bytes */
    linesig_engine_free(engine);
    linesig_engine_free(NULL);
    puts("all error paths ok");
    return 0;
}
