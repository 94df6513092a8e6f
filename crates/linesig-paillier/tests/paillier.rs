//! Paillier: round trips in both modes, the homomorphic operations, array calls against
//! single calls, every error, and decryption against an independent oracle (textbook
//! λ/μ decryption on num-bigint, no CRT) over seeded random keys.

use linesig_paillier::{
    generate_keypair, Error, Integer, Kernel, Mode, Pool, PrivateKey, PublicKey, GROUP,
};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn to_big(x: &Integer) -> BigUint {
    BigUint::parse_bytes(x.to_string_radix(16).as_bytes(), 16).unwrap()
}

/// Paillier's own decryption (§3): m = L(c^λ mod n²)·μ mod n with λ = lcm(p−1, q−1) and
/// μ = L(g^λ mod n²)⁻¹ mod n, on num-bigint: nothing shared with the code under test.
fn oracle_decrypt(key: &PrivateKey, c: &Integer) -> Integer {
    let (p, q) = (to_big(key.p()), to_big(key.q()));
    let n = &p * &q;
    let n2 = &n * &n;
    let one = BigUint::from(1u8);
    let (p1, q1) = (&p - &one, &q - &one);
    let gcd = {
        let (mut a, mut b) = (p1.clone(), q1.clone());
        while b != BigUint::from(0u8) {
            let t = &a % &b;
            a = b;
            b = t;
        }
        a
    };
    let lambda = &p1 * &q1 / gcd;
    let l = |x: BigUint| (x - &one) / &n;
    let g = &n + &one;
    let mu = l(g.modpow(&lambda, &n2)).modinv(&n).unwrap();
    let m = l(to_big(c).modpow(&lambda, &n2)) * mu % &n;
    Integer::from_str_radix(&m.to_str_radix(16), 16).unwrap()
}

fn random_below(n: &Integer, rng: &mut ChaCha20Rng) -> Integer {
    let bytes: Vec<u8> = (0..n.significant_bits().div_ceil(8) + 8)
        .map(|_| rng.gen())
        .collect();
    Integer::from_digits(&bytes, rug::integer::Order::Lsf) % n
}

fn keypair(bits: u32, seed: u64) -> (PublicKey, PrivateKey) {
    generate_keypair(bits, &mut rng(seed)).unwrap()
}

#[test]
fn keygen_gives_exact_size_and_distinct_factors() {
    for (bits, seed) in [(64, 1), (256, 2), (512, 3), (1024, 4), (2048, 5)] {
        let (public, private) = keypair(bits, seed);
        assert_eq!(public.bits(), bits);
        assert_ne!(private.p(), private.q());
        assert!(private.p() < private.q());
        assert_eq!(Integer::from(private.p() * private.q()), *public.n());
    }
}

#[test]
fn round_trip_both_modes_matches_oracle() {
    for (bits, seed) in [(64, 10), (256, 11), (512, 12), (1024, 13)] {
        let (public, private) = keypair(bits, seed);
        let djn = public.clone().with_random_djn(&mut rng(seed + 100));
        let mut r = rng(seed + 200);
        let n = public.n().clone();
        let edges = [
            Integer::new(),
            Integer::from(1),
            Integer::from(&n - 1u32),
            public.max_int(),
            &n - public.max_int(),
        ];
        let randoms: Vec<Integer> = (0..20).map(|_| random_below(&n, &mut r)).collect();
        for m in edges.iter().chain(&randoms) {
            for (key, mode) in [(&public, Mode::Textbook), (&djn, Mode::Djn)] {
                let c = key.encrypt(m, mode, &mut r).unwrap();
                assert!(c > 0 && c < *public.n_square());
                assert_eq!(private.decrypt(&c).unwrap(), *m, "{bits}-bit, {mode:?}");
                assert_eq!(oracle_decrypt(&private, &c), *m);
            }
        }
        // Encryption is randomised: the same plaintext twice gives two ciphertexts.
        let a = djn.encrypt(&randoms[0], Mode::Djn, &mut r).unwrap();
        let b = djn.encrypt(&randoms[0], Mode::Djn, &mut r).unwrap();
        assert_ne!(a, b);
    }
}

#[test]
fn encrypt_with_r_is_the_textbook_formula() {
    let (public, private) = keypair(256, 20);
    let n = public.n();
    let n2 = public.n_square();
    let m = Integer::from(123_456_789u64);
    let r = Integer::from(987_654_321u64);
    let want = (m.clone() * n + 1u32) * Integer::from(r.pow_mod_ref(n, n2).unwrap()) % n2;
    assert_eq!(public.encrypt_with_r(&m, &r).unwrap(), want);
    assert_eq!(private.decrypt(&want).unwrap(), m);
}

#[test]
fn homomorphic_operations() {
    let (public, private) = keypair(512, 30);
    let n = public.n().clone();
    let mut r = rng(31);
    for _ in 0..20 {
        let a = random_below(&n, &mut r);
        let b = random_below(&n, &mut r);
        let ca = public.encrypt(&a, Mode::Textbook, &mut r).unwrap();
        let cb = public.encrypt(&b, Mode::Textbook, &mut r).unwrap();
        let dec = |c: &Integer| private.decrypt(c).unwrap();
        assert_eq!(
            dec(&public.add(&ca, &cb).unwrap()),
            Integer::from(&a + &b) % &n
        );
        assert_eq!(
            dec(&public.add_plain(&ca, &b).unwrap()),
            Integer::from(&a + &b) % &n
        );
        assert_eq!(
            dec(&public.mul_plain(&ca, &b).unwrap()),
            Integer::from(&a * &b) % &n
        );
        assert_eq!(
            dec(&public.negate(&ca).unwrap()),
            Integer::from(&n - &a) % &n
        );
        // Scalars that encode negatives take the inverse path; same plaintext either way.
        let minus_three = Integer::from(&n - 3u32);
        assert_eq!(
            dec(&public.mul_plain(&ca, &minus_three).unwrap()),
            Integer::from(&a * &minus_three) % &n
        );
        let c = public.mul_plain(&ca, &minus_three).unwrap();
        let inv = Integer::from(ca.invert_ref(public.n_square()).unwrap());
        assert_eq!(
            c,
            Integer::from(
                inv.pow_mod_ref(&Integer::from(3), public.n_square())
                    .unwrap()
            )
        );
        // Re-obfuscation keeps the plaintext and changes the ciphertext.
        let o = public.obfuscate(&ca, Mode::Textbook, &mut r).unwrap();
        assert_ne!(o, ca);
        assert_eq!(dec(&o), a);
    }
}

#[test]
fn array_calls_equal_single_calls_in_order() {
    let (public, private) = keypair(512, 40);
    let djn = public.clone().with_random_djn(&mut rng(41));
    let n = public.n().clone();
    let mut r = rng(42);
    let pool = Pool::new(3).unwrap();
    let ms: Vec<Integer> = (0..37).map(|_| random_below(&n, &mut r)).collect();
    let ks: Vec<Integer> = (0..37).map(|_| random_below(&n, &mut r)).collect();
    for (key, mode) in [(&public, Mode::Textbook), (&djn, Mode::Djn)] {
        let cs = pool.encrypt(key, &ms, mode).unwrap();
        assert_eq!(pool.decrypt(&private, &cs).unwrap(), ms);
        let again = pool.obfuscate(key, &cs, mode).unwrap();
        assert_eq!(pool.decrypt(&private, &again).unwrap(), ms);
    }
    assert!(djn.djn_table_bytes() > 0);
    let ca = pool.encrypt(&public, &ms, Mode::Textbook).unwrap();
    let cb = pool.encrypt(&public, &ks, Mode::Textbook).unwrap();
    let single = |f: &dyn Fn(&Integer, &Integer) -> Integer, xs: &[Integer], ys: &[Integer]| {
        xs.iter().zip(ys).map(|(x, y)| f(x, y)).collect::<Vec<_>>()
    };
    assert_eq!(
        pool.add(&public, &ca, &cb).unwrap(),
        single(&|x, y| public.add(x, y).unwrap(), &ca, &cb)
    );
    assert_eq!(
        pool.add_plain(&public, &ca, &ks).unwrap(),
        single(&|x, y| public.add_plain(x, y).unwrap(), &ca, &ks)
    );
    assert_eq!(
        pool.mul_plain(&public, &ca, &ks).unwrap(),
        single(&|x, y| public.mul_plain(x, y).unwrap(), &ca, &ks)
    );
    assert_eq!(
        pool.negate(&public, &ca).unwrap(),
        ca.iter()
            .map(|c| public.negate(c).unwrap())
            .collect::<Vec<_>>()
    );
    let sum = ms.iter().fold(Integer::new(), |s, m| (s + m) % &n);
    assert_eq!(
        private.decrypt(&pool.sum(&public, &ca).unwrap()).unwrap(),
        sum
    );
    let dot = ms
        .iter()
        .zip(&ks)
        .fold(Integer::new(), |s, (m, k)| (s + Integer::from(m * k)) % &n);
    assert_eq!(
        private
            .decrypt(&pool.dot(&public, &ca, &ks).unwrap())
            .unwrap(),
        dot
    );
    assert_eq!(pool.sum(&public, &[]).unwrap(), 1);
}

/// Every kernel this CPU runs (GMP, the Montgomery kernel's portable model, IFMA where
/// present) gives the same integers in array calls: ciphertexts that decrypt (by the
/// oracle too) to their plaintexts, and decryptions equal to single calls, over full
/// groups and a ragged tail, on edge ciphertexts as well (0, 1, n² − 1, a multiple of p).
#[test]
fn every_kernel_gives_the_same_integers() {
    let kernels: Vec<Kernel> = Kernel::ALL
        .into_iter()
        .filter(|k| k.is_supported())
        .collect();
    assert!(kernels.contains(&Kernel::Portable));
    for (bits, seed) in [(64, 60), (512, 61), (1024, 62)] {
        let (public, private) = keypair(bits, seed);
        let djn = public.clone().with_random_djn(&mut rng(seed + 100));
        let n = public.n().clone();
        let n2 = public.n_square().clone();
        let mut r = rng(seed + 200);
        let mut ms: Vec<Integer> = (0..2 * GROUP + 3)
            .map(|_| random_below(&n, &mut r))
            .collect();
        ms[0] = Integer::new();
        ms[1] = Integer::from(&n - 1u32);
        let mut edge: Vec<Integer> = (0..GROUP + 1).map(|_| random_below(&n2, &mut r)).collect();
        edge[0] = Integer::new();
        edge[1] = Integer::from(1);
        edge[2] = Integer::from(&n2 - 1u32);
        edge[3] = private.p().clone();
        edge[4] = Integer::from(private.q() * 5u32);
        let want_edge: Vec<Integer> = edge.iter().map(|c| private.decrypt(c).unwrap()).collect();
        for &kernel in &kernels {
            let pool = Pool::with_kernel(2, kernel).unwrap();
            assert_eq!(pool.kernel(), kernel);
            for (key, mode) in [(&public, Mode::Textbook), (&djn, Mode::Djn)] {
                let cs = pool.encrypt(key, &ms, mode).unwrap();
                assert!(cs.iter().all(|c| *c > 0 && *c < n2));
                let singles: Vec<Integer> =
                    cs.iter().map(|c| private.decrypt(c).unwrap()).collect();
                assert_eq!(singles, ms, "{kernel} {mode:?} {bits}-bit");
                assert_eq!(
                    pool.decrypt(&private, &cs).unwrap(),
                    ms,
                    "{kernel} {mode:?}"
                );
                for i in [0, GROUP, 2 * GROUP + 2] {
                    assert_eq!(oracle_decrypt(&private, &cs[i]), ms[i], "{kernel} {mode:?}");
                }
                let again = pool.obfuscate(key, &cs, mode).unwrap();
                assert!(again.iter().zip(&cs).all(|(a, c)| a != c));
                assert_eq!(
                    pool.decrypt(&private, &again).unwrap(),
                    ms,
                    "{kernel} {mode:?}"
                );
            }
            assert_eq!(
                pool.decrypt(&private, &edge).unwrap(),
                want_edge,
                "{kernel} {bits}-bit"
            );
            // Every tail length: short tails item by item on GMP, longer ones padded into
            // a kernel call of their own (PADDED_TAIL_FROM), both in both directions.
            if bits <= 512 {
                for len in GROUP..2 * GROUP {
                    for (key, mode) in [(&public, Mode::Textbook), (&djn, Mode::Djn)] {
                        let cs = pool.encrypt(key, &ms[..len], mode).unwrap();
                        let singles: Vec<Integer> =
                            cs.iter().map(|c| private.decrypt(c).unwrap()).collect();
                        assert_eq!(singles, ms[..len], "{kernel} {mode:?} {len}");
                        let again = pool.obfuscate(key, &cs, mode).unwrap();
                        assert_eq!(
                            pool.decrypt(&private, &again).unwrap(),
                            ms[..len],
                            "{kernel} {mode:?} {len}"
                        );
                    }
                }
            }
            // The first bad item's index, inside a full group and in the tail.
            for bad_at in [GROUP + 3, 2 * GROUP + 1] {
                let mut bad = ms.clone();
                bad[bad_at] = n.clone();
                assert_eq!(
                    pool.encrypt(&public, &bad, Mode::Textbook).unwrap_err(),
                    Error::Item {
                        index: bad_at,
                        error: Box::new(Error::PlaintextOutOfRange)
                    },
                    "{kernel}"
                );
                let mut bad = edge.clone();
                bad[bad_at.min(GROUP)] = n2.clone();
                assert!(matches!(
                    pool.decrypt(&private, &bad).unwrap_err(),
                    Error::Item { index, .. } if index == bad_at.min(GROUP)
                ));
            }
            assert_eq!(
                pool.encrypt(&public, &ms, Mode::Djn).unwrap_err(),
                Error::DjnNotEnabled
            );
        }
    }
    assert_eq!(Pool::new(1).unwrap().kernel(), Kernel::best());
    if !Kernel::Ifma.is_supported() {
        assert_eq!(
            Pool::with_kernel(1, Kernel::Ifma).unwrap_err(),
            Error::KernelUnsupported(Kernel::Ifma)
        );
    }
    assert_eq!("IFMA".parse::<Kernel>(), Ok(Kernel::Ifma));
    assert!("avx2".parse::<Kernel>().is_err());
}

/// A value that shares a factor with n is no ciphertext, yet phe's `raw_decrypt` returns
/// something for it, and so must every path here, bit for bit: the expected values were
/// printed by phe 1.5.0 (with gmpy2) for this key, whose L function rounds (0 − 1)/p down
/// to −1 where a truncating division gives 0.
#[test]
fn values_sharing_a_factor_with_n_decrypt_as_phe_decrypts_them() {
    let hex = |s: &str| Integer::from_str_radix(s, 16).unwrap();
    let p = hex("cc3603ba2b53c2b9f7ffe38cdf850a9163a9f30b16f5260806d5a98f4f341147");
    let q = hex("f890ac0ca9626bbd157693ba52fdb94d0922abd6a2da596d38adc75c2303f0b1");
    let n = Integer::from(&p * &q);
    let public = PublicKey::new(n.clone()).unwrap();
    let private = PrivateKey::from_factors(public.clone(), p.clone(), q.clone()).unwrap();
    let p2 = Integer::from(p.square_ref());
    let n2 = public.n_square().clone();
    let from_zero = "9547b6550b8975e5e4c0df7669204b36c8c915462d4ff72ee93bc0ae70a55a097d456e286d41377c3c09ef9297c1c682e6027fc5aa05c9aad7ef87e00bd5a05b";
    let from_p = "1eff58b3dc3beb887768ce4090e850d359093d823bee412a03cbc986b98a7b870044fe2c0b255dbdf6b07aa99fdcf3f5d3ee8beb4dbbb8f06e93d9ab1b1943bf";
    let cases: Vec<(Integer, &str)> = vec![
        (Integer::new(), from_zero),
        (p.clone(), from_p),
        (q.clone(), "768acbc5f0fc8a25fa661fe2f4b273a47aa4326be5c77cad627249e224440319b74f60b79746601fe894ffc50518b4d1b8beba89afbb5c92006f879ee7e17082"),
        (Integer::from(&p * 3u32), "47ff14d315e23a797db10a9985ebd87e684cc6b511afd51029f2408f4edb9a8d57ed8e0155907536567f910356577f86fd62e10a97c98f01a0bea2a6a742038f"),
        (Integer::from(&q * 7u32), "562e279e8e45ddf606465f5e555460033f171faf82fe096e5099ee0db576ba34c0da061a7c0d21570a5bd2ebe8449a02af6107a471410932c83a2b402733b646"),
        (p2.clone(), "2f8bfd51280992fdc1d3879f9b94bc35af7696fd79991cf5e37c95b4a334d878f467ab46aa5b4d695b3b2268a9d117c7000b24ce46be31755ff91bd3da7eb49d"),
        (p2 + &q, "9aa3d97000e9fc580b86d61edf893609aa9edffdc95be606a1f2a2113baa1b3302323f01af556d0aa3d3946a072fcfebd63ede9147589007634fdb6aeccff8ab"),
        (n, from_zero),
        (n2 - &p, from_p),
    ];
    let (cs, want): (Vec<Integer>, Vec<Integer>) =
        cases.into_iter().map(|(c, m)| (c, hex(m))).unzip();
    for (c, m) in cs.iter().zip(&want) {
        assert_eq!(&private.decrypt(c).unwrap(), m, "one call, c = {c}");
    }
    // Array calls: a full group of eight on each kernel's lanes and a tail on GMP.
    for kernel in Kernel::ALL.into_iter().filter(|k| k.is_supported()) {
        let pool = Pool::with_kernel(1, kernel).unwrap();
        assert_eq!(pool.decrypt(&private, &cs).unwrap(), want, "{kernel}");
    }
}

#[test]
fn every_error_is_typed() {
    let (public, private) = keypair(256, 50);
    let n = public.n().clone();
    let n2 = public.n_square().clone();
    let mut r = rng(51);
    assert_eq!(
        generate_keypair(63, &mut r).unwrap_err(),
        Error::KeySize(63)
    );
    assert_eq!(
        generate_keypair(257, &mut r).unwrap_err(),
        Error::KeySize(257)
    );
    assert_eq!(
        PublicKey::new(Integer::from(10)).unwrap_err(),
        Error::BadModulus
    );
    assert_eq!(
        PublicKey::new(Integer::from(1)).unwrap_err(),
        Error::BadModulus
    );
    let (p, q) = (private.p().clone(), private.q().clone());
    assert_eq!(
        PrivateKey::from_factors(public.clone(), p.clone(), p.clone()).unwrap_err(),
        Error::EqualFactors
    );
    assert_eq!(
        PrivateKey::from_factors(public.clone(), p.clone(), Integer::from(&q + 2u32)).unwrap_err(),
        Error::FactorsMismatch
    );
    // Factors in either order make the same key.
    let swapped = PrivateKey::from_factors(public.clone(), q, p).unwrap();
    assert_eq!(swapped.p(), private.p());

    let encrypt = |m: &Integer| public.clone().encrypt(m, Mode::Textbook, &mut rng(0));
    assert_eq!(encrypt(&n).unwrap_err(), Error::PlaintextOutOfRange);
    assert_eq!(
        encrypt(&Integer::from(-1)).unwrap_err(),
        Error::PlaintextOutOfRange
    );
    assert_eq!(
        private.decrypt(&n2).unwrap_err(),
        Error::CiphertextOutOfRange
    );
    assert_eq!(
        private.decrypt(&Integer::from(-5)).unwrap_err(),
        Error::CiphertextOutOfRange
    );
    assert_eq!(
        public.add(&n2, &Integer::from(1)).unwrap_err(),
        Error::CiphertextOutOfRange
    );
    // A multiple of p has no inverse mod n²: negating it is an error, not a panic.
    assert_eq!(
        public.negate(private.p()).unwrap_err(),
        Error::NotInvertible
    );
    assert_eq!(
        public
            .encrypt(&Integer::from(1), Mode::Djn, &mut r)
            .unwrap_err(),
        Error::DjnNotEnabled
    );
    assert_eq!(
        public.clone().with_djn(Integer::new()).unwrap_err(),
        Error::BadDjnBase
    );
    assert_eq!(
        public.clone().with_djn(n2.clone()).unwrap_err(),
        Error::BadDjnBase
    );
    assert_eq!(
        public.clone().with_djn(private.p().clone()).unwrap_err(),
        Error::BadDjnBase
    );
    assert_eq!(Pool::new(0).unwrap_err(), Error::ZeroWorkers);
    assert_eq!(
        Pool::new(linesig_paillier::MAX_WORKERS + 1).unwrap_err(),
        Error::TooManyWorkers {
            requested: linesig_paillier::MAX_WORKERS + 1,
            max: linesig_paillier::MAX_WORKERS
        }
    );

    let pool = Pool::new(2).unwrap();
    let ok = Integer::from(5);
    let bad = [ok.clone(), ok.clone(), n.clone()];
    match pool.encrypt(&public, &bad, Mode::Textbook).unwrap_err() {
        Error::Item { index, error } => {
            assert_eq!(index, 2);
            assert_eq!(*error, Error::PlaintextOutOfRange);
        }
        other => panic!("expected an item error, got {other:?}"),
    }
    assert_eq!(
        pool.add(&public, std::slice::from_ref(&ok), &[])
            .unwrap_err(),
        Error::LengthMismatch(1, 0)
    );
    assert!(matches!(
        pool.sum(&public, &[ok.clone(), n2.clone()]).unwrap_err(),
        Error::Item { index: 1, .. }
    ));
}
