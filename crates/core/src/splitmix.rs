//! SplitMix64: the 64-bit finaliser that ends the rendezvous hash of [`super::group_assignment`],
//! and the deterministic generator built on it, so tests and benchmarks replay the same stream
//! on every run without a seed file.

/// The SplitMix64 finaliser: nearby inputs give unrelated outputs.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 generator; the field is its state (the seed at first). Used by the unit tests
/// and, through the Rust API crate's `internals`, by the integration tests and benchmarks.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// Uniform in `lo..hi`, up to a modulo bias that no test or benchmark here cares about.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_stream() {
        // The first outputs of SplitMix64 seeded with 0, as in Vigna's reference implementation.
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn range_stays_in_bounds() {
        let mut rng = SplitMix64(9);
        assert!((0..1000)
            .map(|_| rng.range(5, 8))
            .all(|x| (5..8).contains(&x)));
    }
}
