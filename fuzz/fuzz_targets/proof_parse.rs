//! The aggregate proof's parser on arbitrary bytes (`linesig_aggregate::stark::decode`,
//! behind `linesig verify-aggregate` and the C ABI's `linesig_leansig_verify_aggregate`).
//! When the first byte is odd the magic and version go first, so that the fuzzer works
//! on the count and the body. No panic; what decodes encodes to bytes that decode to
//! the same encoding (the bytes themselves may differ: a field element's encoding is
//! read modulo its prime).
#![no_main]

use libfuzzer_sys::fuzz_target;
use linesig_aggregate::stark::{decode, encode, FORMAT_VERSION, MAGIC};

fuzz_target!(|input: &[u8]| {
    let Some((&control, body)) = input.split_first() else {
        return;
    };
    let bytes = if control & 1 == 0 {
        body.to_vec()
    } else {
        [&MAGIC[..], &[FORMAT_VERSION], body].concat()
    };
    if let Ok((count, proof)) = decode(&bytes) {
        let once = encode(count, &proof);
        let (again_count, again) = decode(&once).expect("an encoded proof decodes");
        assert_eq!(again_count, count);
        assert_eq!(encode(again_count, &again), once);
    }
});
