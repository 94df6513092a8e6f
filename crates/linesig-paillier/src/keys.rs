//! Paillier keys: generation, encryption in both modes, CRT decryption and the homomorphic
//! operations on single values. Every operation's result is the same integer phe computes
//! for the same inputs (and the same randomness), so the two interoperate both ways.

use std::sync::{Arc, OnceLock};

use rand::{CryptoRng, RngCore};
use rug::integer::IsPrime;
use rug::ops::{DivRounding, RemRounding};
use rug::Integer;

use super::fixed_base::{FixedBaseTable, DEFAULT_WINDOW};
use super::montgomery::{FixedBase52, Lanes, Secrecy, SquareModulus52, LANES};
use super::{random_below, random_nonzero_below, Error, Mode, MIN_KEY_BITS};

/// Miller–Rabin rounds after GMP's own trial division and BPSW test: the probability that
/// a composite passes is below 2^-100 for the candidate sizes used here.
const PRIME_TEST_ROUNDS: u32 = 30;

/// n, n², and optionally the DJN base hs with its fixed-base table (shared by clones).
#[derive(Clone)]
pub struct PublicKey {
    n: Integer,
    n_square: Integer,
    djn: Option<Arc<Djn>>,
    /// n² in the Montgomery kernel's form, made on the first array call that uses it
    /// (`None`: a modulus the kernel does not take).
    kernel_n_square: Arc<OnceLock<Option<SquareModulus52>>>,
}

struct Djn {
    hs: Integer,
    /// α is drawn below 2^alpha_bits, alpha_bits = ⌈bits(n)/2⌉ (DJN §4.2).
    alpha_bits: u32,
    table: OnceLock<FixedBaseTable>,
    /// The table's copy in the kernel's form, made on the first kernel DJN call.
    kernel_table: OnceLock<Option<FixedBase52>>,
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PublicKey")
            .field("bits", &self.bits())
            .field("djn", &self.djn.is_some())
            .finish()
    }
}

/// Keys are equal when their moduli are (phe's rule); hs is an encryption option, not
/// part of the key's identity.
impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
    }
}
impl Eq for PublicKey {}

impl PublicKey {
    /// The public key for modulus n (g = n + 1 implied). n must be odd and at least 3;
    /// whether it is a product of two primes cannot be checked without them.
    pub fn new(n: Integer) -> Result<Self, Error> {
        if n < 3 || n.is_even() {
            return Err(Error::BadModulus);
        }
        let n_square = Integer::from(n.square_ref());
        Ok(PublicKey {
            n,
            n_square,
            djn: None,
            kernel_n_square: Arc::new(OnceLock::new()),
        })
    }

    pub fn n(&self) -> &Integer {
        &self.n
    }

    pub fn n_square(&self) -> &Integer {
        &self.n_square
    }

    /// Bits of n.
    pub fn bits(&self) -> u32 {
        self.n.significant_bits()
    }

    /// phe's bound for signed plaintexts: n/3 − 1. Values in [n − max_int, n) encode
    /// negatives; [`PublicKey::mul_plain`] uses it to pick the cheaper exponent exactly as
    /// phe does, so both give the same ciphertext.
    pub fn max_int(&self) -> Integer {
        Integer::from(&self.n / 3u32) - 1u32
    }

    /// This key with the DJN base hs (published by the key's owner), so that
    /// [`Mode::Djn`] works. hs must be an invertible element of (0, n²).
    pub fn with_djn(mut self, hs: Integer) -> Result<Self, Error> {
        if hs <= 0 || hs >= self.n_square || Integer::from(hs.gcd_ref(&self.n)) != 1 {
            return Err(Error::BadDjnBase);
        }
        self.djn = Some(Arc::new(Djn {
            hs,
            alpha_bits: self.bits().div_ceil(2),
            table: OnceLock::new(),
            kernel_table: OnceLock::new(),
        }));
        Ok(self)
    }

    /// This key with a fresh DJN base: hs = (−x²)^n mod n² for a random unit x.
    pub fn with_random_djn<R: RngCore + CryptoRng + ?Sized>(self, rng: &mut R) -> Self {
        let x = loop {
            let x = random_nonzero_below(&self.n, rng);
            if Integer::from(x.gcd_ref(&self.n)) == 1 {
                break x;
            }
        };
        let h = &self.n - Integer::from(x.square_ref()) % &self.n;
        let hs = pow_mod(&h, &self.n, &self.n_square);
        self.with_djn(hs)
            .expect("(−x²)^n for a unit x is a unit of (0, n²)")
    }

    /// The DJN base hs, if this key has one.
    pub fn djn_hs(&self) -> Option<&Integer> {
        self.djn.as_ref().map(|d| &d.hs)
    }

    /// Bytes of the DJN fixed-base tables built so far: GMP's (on first DJN use) and
    /// the kernel's copy (on the first DJN array call on a kernel).
    pub fn djn_table_bytes(&self) -> usize {
        self.djn.as_ref().map_or(0, |d| {
            d.table.get().map_or(0, FixedBaseTable::bytes)
                + d.kernel_table
                    .get()
                    .and_then(Option::as_ref)
                    .map_or(0, FixedBase52::bytes)
        })
    }

    /// Build the DJN table now rather than on the first encryption.
    pub fn prepare_djn(&self) -> Result<(), Error> {
        self.djn_table().map(|_| ())
    }

    fn djn_table(&self) -> Result<(&FixedBaseTable, u32), Error> {
        let djn = self.djn.as_ref().ok_or(Error::DjnNotEnabled)?;
        let table = djn.table.get_or_init(|| {
            FixedBaseTable::new(&djn.hs, &self.n_square, djn.alpha_bits, DEFAULT_WINDOW)
        });
        Ok((table, djn.alpha_bits))
    }

    /// Encrypt m ∈ [0, n) with a fresh obfuscator drawn as `mode` says.
    pub fn encrypt<R: RngCore + CryptoRng + ?Sized>(
        &self,
        m: &Integer,
        mode: Mode,
        rng: &mut R,
    ) -> Result<Integer, Error> {
        self.obfuscate(&self.encrypt_unobfuscated(m)?, mode, rng)
    }

    /// Encrypt m ∈ [0, n) with the given r > 0: (1 + m·n)·r^n mod n². phe's
    /// `raw_encrypt(m, r_value=r)`; deterministic, for tests and fixtures.
    pub fn encrypt_with_r(&self, m: &Integer, r: &Integer) -> Result<Integer, Error> {
        if *r <= 0 {
            return Err(Error::PlaintextOutOfRange);
        }
        let nude = self.encrypt_unobfuscated(m)?;
        Ok(self.mul_mod(&nude, &pow_mod(r, &self.n, &self.n_square)))
    }

    /// (1 + n)^m = 1 + m·n mod n²: a valid ciphertext of m that anyone can undo; obfuscate
    /// it before it leaves the machine.
    pub fn encrypt_unobfuscated(&self, m: &Integer) -> Result<Integer, Error> {
        self.check_plaintext(m)?;
        Ok((Integer::from(m * &self.n) + 1u32) % &self.n_square)
    }

    /// c times a fresh obfuscator: the same plaintext, unlinkable to c.
    pub fn obfuscate<R: RngCore + CryptoRng + ?Sized>(
        &self,
        c: &Integer,
        mode: Mode,
        rng: &mut R,
    ) -> Result<Integer, Error> {
        self.check_ciphertext(c)?;
        let obfuscator = self.obfuscator(mode, rng)?;
        Ok(self.mul_mod(c, &obfuscator))
    }

    /// A random n-th residue mod n²: r^n (textbook) or hs^α (DJN).
    pub fn obfuscator<R: RngCore + CryptoRng + ?Sized>(
        &self,
        mode: Mode,
        rng: &mut R,
    ) -> Result<Integer, Error> {
        match mode {
            Mode::Textbook => {
                let r = random_nonzero_below(&self.n, rng);
                Ok(pow_mod(&r, &self.n, &self.n_square))
            }
            Mode::Djn => {
                let (table, alpha_bits) = self.djn_table()?;
                let alpha = random_below(&(Integer::from(1) << alpha_bits), rng);
                Ok(table.pow(&alpha).expect("α is non-negative"))
            }
        }
    }

    /// Eight values in [0, n²), each times an obfuscator drawn as
    /// [`PublicKey::obfuscator`] draws one (mod n²): [`PublicKey::obfuscate`] of each. The
    /// exponentiations run on the kernel `lanes`, which also multiply by the values on
    /// their way out of the Montgomery domain; GMP where the kernel does not take this
    /// modulus. For array calls.
    pub(crate) fn obfuscate_lanes<R: RngCore + CryptoRng + ?Sized>(
        &self,
        lanes: Lanes,
        values: &[Integer; LANES],
        mode: Mode,
        rng: &mut R,
    ) -> Result<[Integer; LANES], Error> {
        let on_gmp = |obfuscators: [Integer; LANES]| {
            let mut out = obfuscators;
            for (o, v) in out.iter_mut().zip(values) {
                *o = self.mul_mod(v, o);
            }
            out
        };
        match mode {
            Mode::Textbook => {
                let Some(modulus) = self.kernel_n_square() else {
                    return Ok(on_gmp(core::array::from_fn(|_| {
                        self.obfuscator(mode, rng)
                            .expect("textbook needs nothing more")
                    })));
                };
                let r: [Integer; LANES] =
                    core::array::from_fn(|_| random_nonzero_below(&self.n, rng));
                Ok(lanes.power(modulus, &r, &self.n, Secrecy::Public, Some(values)))
            }
            Mode::Djn => {
                let (table, alpha_bits) = self.djn_table()?;
                let kernel_table = self.djn_kernel_table(lanes)?;
                let bound = Integer::from(1) << alpha_bits;
                let alpha: [Integer; LANES] = core::array::from_fn(|_| random_below(&bound, rng));
                if let Some(out) =
                    kernel_table.and_then(|t| lanes.power_fixed_base(t, &alpha, Some(values)))
                {
                    return Ok(out);
                }
                Ok(on_gmp(
                    alpha.map(|a| table.pow(&a).expect("α is non-negative")),
                ))
            }
        }
    }

    /// The kernel's copy of the DJN table, built on first use (`None`: a modulus the
    /// kernel does not take). Its entries are the same whichever lanes build it.
    fn djn_kernel_table(&self, lanes: Lanes) -> Result<Option<&FixedBase52>, Error> {
        let (table, _) = self.djn_table()?;
        let djn = self.djn.as_ref().ok_or(Error::DjnNotEnabled)?;
        Ok(djn
            .kernel_table
            .get_or_init(|| {
                let modulus = SquareModulus52::new(&self.n)?;
                Some(lanes.fixed_base_table(modulus, table.window(), table.rows()))
            })
            .as_ref())
    }

    pub(crate) fn prepare_djn_kernel(&self, lanes: Lanes) -> Result<(), Error> {
        self.djn_kernel_table(lanes).map(|_| ())
    }

    /// Whether the kernel takes this key's moduli (n², and so p² and q²): all but keys
    /// of tens of thousands of bits.
    pub(crate) fn kernel_takes_key(&self) -> bool {
        self.kernel_n_square().is_some()
    }

    fn kernel_n_square(&self) -> Option<&SquareModulus52> {
        self.kernel_n_square
            .get_or_init(|| SquareModulus52::new(&self.n))
            .as_ref()
    }

    /// Enc(a + b): a·b mod n².
    pub fn add(&self, a: &Integer, b: &Integer) -> Result<Integer, Error> {
        self.check_ciphertext(a)?;
        self.check_ciphertext(b)?;
        Ok(self.mul_mod(a, b))
    }

    /// Enc(a + k) for a plaintext k ∈ [0, n): c·(1 + k·n) mod n², not obfuscated.
    pub fn add_plain(&self, c: &Integer, k: &Integer) -> Result<Integer, Error> {
        self.check_ciphertext(c)?;
        let nude = self.encrypt_unobfuscated(k)?;
        Ok(self.mul_mod(c, &nude))
    }

    /// Enc(a·k) for a plaintext k ∈ [0, n): c^k mod n², or (c⁻¹)^(n−k) when k encodes a
    /// negative number (k ≥ n − max_int), which is far cheaper and is what phe computes.
    pub fn mul_plain(&self, c: &Integer, k: &Integer) -> Result<Integer, Error> {
        self.check_ciphertext(c)?;
        self.check_plaintext(k)?;
        let negative_band = &self.n - self.max_int();
        if *k >= negative_band {
            let inverse = self.invert(c)?;
            Ok(pow_mod(
                &inverse,
                &Integer::from(&self.n - k),
                &self.n_square,
            ))
        } else {
            Ok(pow_mod(c, k, &self.n_square))
        }
    }

    /// Enc(−a): c⁻¹ mod n².
    pub fn negate(&self, c: &Integer) -> Result<Integer, Error> {
        self.check_ciphertext(c)?;
        self.invert(c)
    }

    fn invert(&self, c: &Integer) -> Result<Integer, Error> {
        c.invert_ref(&self.n_square)
            .map(Integer::from)
            .ok_or(Error::NotInvertible)
    }

    pub(crate) fn mul_mod(&self, a: &Integer, b: &Integer) -> Integer {
        Integer::from(a * b) % &self.n_square
    }

    pub(crate) fn check_plaintext(&self, m: &Integer) -> Result<(), Error> {
        if *m < 0 || *m >= self.n {
            return Err(Error::PlaintextOutOfRange);
        }
        Ok(())
    }

    pub(crate) fn check_ciphertext(&self, c: &Integer) -> Result<(), Error> {
        if *c < 0 || *c >= self.n_square {
            return Err(Error::CiphertextOutOfRange);
        }
        Ok(())
    }
}

/// The factors p < q of n and what CRT decryption precomputes from them.
#[derive(Clone)]
pub struct PrivateKey {
    public: PublicKey,
    p: Integer,
    q: Integer,
    p_square: Integer,
    q_square: Integer,
    /// p⁻¹ mod q, for the CRT recombination.
    p_inverse: Integer,
    /// h_p = L_p(g^(p−1) mod p²)⁻¹ mod p (Paillier §4, per prime), and h_q likewise.
    hp: Integer,
    hq: Integer,
    /// p² and q² in the Montgomery kernel's form, made on the first array call that
    /// uses them (`None`: moduli the kernel does not take).
    kernel_moduli: Arc<OnceLock<Option<[SquareModulus52; 2]>>>,
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrivateKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl PrivateKey {
    /// The private key for `public` from its factors (in either order).
    pub fn from_factors(public: PublicKey, p: Integer, q: Integer) -> Result<Self, Error> {
        if p == q {
            return Err(Error::EqualFactors);
        }
        if p <= 1 || q <= 1 || Integer::from(&p * &q) != *public.n() {
            return Err(Error::FactorsMismatch);
        }
        let (p, q) = if q < p { (q, p) } else { (p, q) };
        let p_square = Integer::from(p.square_ref());
        let q_square = Integer::from(q.square_ref());
        let p_inverse = p
            .invert_ref(&q)
            .map(Integer::from)
            .ok_or(Error::FactorsMismatch)?;
        let g = Integer::from(public.n() + 1u32);
        let h = |x: &Integer, x_square: &Integer| -> Result<Integer, Error> {
            let gx = pow_mod(&g, &Integer::from(x - 1u32), x_square);
            l_function(&gx, x)
                .invert(x)
                .map_err(|_| Error::FactorsMismatch)
        };
        let hp = h(&p, &p_square)?;
        let hq = h(&q, &q_square)?;
        Ok(PrivateKey {
            public,
            p,
            q,
            p_square,
            q_square,
            p_inverse,
            hp,
            hq,
            kernel_moduli: Arc::new(OnceLock::new()),
        })
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The smaller factor.
    pub fn p(&self) -> &Integer {
        &self.p
    }

    /// The larger factor.
    pub fn q(&self) -> &Integer {
        &self.q
    }

    /// The plaintext in [0, n) of a ciphertext c ∈ [0, n²): m_p = L_p(c^(p−1) mod p²)·h_p
    /// mod p, m_q likewise, recombined by the CRT. A c that shares a factor with n is no
    /// ciphertext of this key and its value means nothing, but it is the one phe's
    /// `raw_decrypt` returns (see [`l_function`]), so the two agree on every input.
    pub fn decrypt(&self, c: &Integer) -> Result<Integer, Error> {
        self.public.check_ciphertext(c)?;
        let cp = pow_mod(c, &Integer::from(&self.p - 1u32), &self.p_square);
        let cq = pow_mod(c, &Integer::from(&self.q - 1u32), &self.q_square);
        Ok(self.recombine(&cp, &cq))
    }

    /// [`PrivateKey::decrypt`] of eight ciphertexts, each already checked to lie in
    /// [0, n²), with the two exponentiations on the kernel `lanes` (GMP where the
    /// kernel does not take these moduli). For array calls.
    pub(crate) fn decrypt_lanes(
        &self,
        lanes: Lanes,
        ciphertexts: &[Integer; LANES],
    ) -> [Integer; LANES] {
        let moduli = self.kernel_moduli.get_or_init(|| {
            Some([
                SquareModulus52::new(&self.p)?,
                SquareModulus52::new(&self.q)?,
            ])
        });
        let Some([mod_p, mod_q]) = moduli else {
            return ciphertexts
                .clone()
                .map(|c| self.decrypt(&c).expect("checked by the caller"));
        };
        let half = |x: &Integer, modulus: &SquareModulus52| {
            let reduced: [Integer; LANES] =
                core::array::from_fn(|i| Integer::from(&ciphertexts[i] % modulus.modulus()));
            lanes.power(
                modulus,
                &reduced,
                &Integer::from(x - 1u32),
                Secrecy::Secret,
                None,
            )
        };
        let cp = half(&self.p, mod_p);
        let cq = half(&self.q, mod_q);
        core::array::from_fn(|i| self.recombine(&cp[i], &cq[i]))
    }

    /// m from cp = c^(p−1) mod p² and cq = c^(q−1) mod q²: m_p = L_p(cp)·h_p mod p,
    /// m_q likewise, and m = m_p + p·((m_q − m_p)·p⁻¹ mod q).
    fn recombine(&self, cp: &Integer, cq: &Integer) -> Integer {
        let mp = (l_function(cp, &self.p) * &self.hp).rem_euc(&self.p);
        let mq = (l_function(cq, &self.q) * &self.hq).rem_euc(&self.q);
        let u = (Integer::from(&mq - &mp) * &self.p_inverse).rem_euc(&self.q);
        mp + u * &self.p
    }
}

/// A key pair with n of exactly `bits` bits (even, at least [`MIN_KEY_BITS`]): p and q are
/// distinct primes of bits/2 bits each with their two top bits set, so that p·q has
/// exactly `bits` bits.
pub fn generate_keypair<R: RngCore + CryptoRng + ?Sized>(
    bits: u32,
    rng: &mut R,
) -> Result<(PublicKey, PrivateKey), Error> {
    if bits < MIN_KEY_BITS || !bits.is_multiple_of(2) {
        return Err(Error::KeySize(bits));
    }
    let p = random_prime(bits / 2, rng);
    let q = loop {
        let q = random_prime(bits / 2, rng);
        if q != p {
            break q;
        }
    };
    let public = PublicKey::new(Integer::from(&p * &q))?;
    let private = PrivateKey::from_factors(public.clone(), p, q)?;
    Ok((public, private))
}

/// A random prime of exactly `bits` bits with its top two bits set.
fn random_prime<R: RngCore + CryptoRng + ?Sized>(bits: u32, rng: &mut R) -> Integer {
    let top_two = Integer::from(3) << (bits - 2);
    let bound = Integer::from(1) << (bits - 2);
    loop {
        // GMP's next_prime sieves upwards from a random start (BPSW plus Miller–Rabin);
        // the extra rounds below make the bound explicit. Restart past `bits` bits.
        let candidate = (random_below(&bound, rng) | &top_two).next_prime();
        if candidate.significant_bits() == bits
            && candidate.is_probably_prime(PRIME_TEST_ROUNDS) != IsPrime::No
        {
            return candidate;
        }
    }
}

/// L(x) = (x − 1)/p, exact for x ≡ 1 mod p (Paillier's L function). Rounded down, as
/// phe's `(x - 1) // p`: the only other x a decryption meets is 0 (c^(p−1) mod p² for a c
/// divisible by p), where L is −1 here and in phe, not the 0 of a truncating division.
fn l_function(x: &Integer, p: &Integer) -> Integer {
    Integer::from(x - 1u32).div_floor(p)
}

/// base^exponent mod modulus for a non-negative exponent and a positive modulus.
fn pow_mod(base: &Integer, exponent: &Integer, modulus: &Integer) -> Integer {
    base.pow_mod_ref(exponent, modulus)
        .map(Integer::from)
        .expect("a non-negative exponent always has a result")
}
