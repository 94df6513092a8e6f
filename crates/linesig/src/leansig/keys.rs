//! Key generation and signing (temporary).
#[derive(Debug)]
pub struct KeyGenError;
#[derive(Debug)]
pub struct SignError;
pub struct SecretKey;
