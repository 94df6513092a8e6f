/* Verify a batch of Ed25519 signatures from C: RFC 8032 TEST 1, a corrupted copy, and a
 * truncated signature. Build, in crates/linesig-ffi after `cargo build --release -p linesig-ffi`
 * (docs/usage.md, "C", has the shared-library line with its rpath):
 *   cc -I include examples/verify.c ../../target/release/liblinesig_ffi.a -lpthread -ldl -lm */
#include <stdio.h>
#include <string.h>
#include "linesig.h"

static void unhex(const char *hex, uint8_t *out, size_t len) {
    for (size_t i = 0; i < len; i++) sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

int main(void) {
    uint8_t pk[32], sig[64], bad[64];
    unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", pk, 32);
    unhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b", sig, 64);
    memcpy(bad, sig, 64);
    bad[3] ^= 1;

    LinesigConfig config = {0};                      /* Ed25519, strict, all cores */
    LinesigEngine *engine = NULL;
    int status = linesig_engine_new(&config, &engine);
    if (status != LINESIG_STATUS_OK) {
        fprintf(stderr, "engine: %s\n", linesig_status_message(status));
        return 1;
    }
    LinesigBytes keys[3] = {{pk, 32}, {pk, 32}, {pk, 32}};
    LinesigBytes msgs[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};   /* TEST 1 signs the empty message */
    LinesigBytes sigs[3] = {{sig, 64}, {bad, 64}, {sig, 63}};
    uint8_t verdicts[3];
    status = linesig_verify(engine, 3, keys, msgs, sigs, NULL, verdicts);
    if (status != LINESIG_STATUS_OK) {
        fprintf(stderr, "verify: %s\n", linesig_status_message(status));
        return 1;
    }
    printf("linesig %s, backend %s\n", linesig_version(), linesig_engine_backend(engine));
    for (int i = 0; i < 3; i++) printf("item %d: %s\n", i, linesig_reason_name(verdicts[i]));
    linesig_engine_free(engine);
    return verdicts[0] == 0 && verdicts[1] != 0 && verdicts[2] != 0 ? 0 : 1;
}
