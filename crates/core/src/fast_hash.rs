//! `FastHash`: a small multiply-rotate hasher for the offset-sync store's in-memory maps, where
//! std's SipHash over every topic name dominated lookups.
//!
//! Each 8-byte word is folded in with one rotate, one xor and one multiply; `finish` mixes the
//! high bits back down, because `HashMap` picks buckets from the low bits. Every store draws its
//! starting state from std's [`RandomState`], so colliding topic names cannot be prepared
//! ahead of time, although this is no keyed cryptographic hash: the keys are topic names read
//! from the offset-syncs topic, which only MirrorSourceTasks write.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// An odd 64-bit constant with well-spread bits (from the golden ratio).
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// The hasher; see the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct FastHasher {
    state: u64,
}

impl FastHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.state = (self.state.rotate_left(23) ^ word).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            // The length keeps "a" and "a\0" apart.
            self.mix(u64::from_le_bytes(word) ^ ((tail.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }

    #[inline]
    fn write_i32(&mut self, n: i32) {
        self.mix(u64::from(n as u32));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        let h = self.state;
        (h ^ (h >> 32)).wrapping_mul(MULTIPLIER) ^ (h >> 29)
    }
}

/// Builds [`FastHasher`]s that start from a per-instance random state.
#[derive(Clone, Copy, Debug)]
pub struct FastHashBuilder {
    seed: u64,
}

impl Default for FastHashBuilder {
    fn default() -> Self {
        FastHashBuilder {
            seed: RandomState::new().build_hasher().finish(),
        }
    }
}

impl BuildHasher for FastHashBuilder {
    type Hasher = FastHasher;

    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher { state: self.seed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::hash::Hash;

    fn hash_of<T: Hash + ?Sized>(builder: &FastHashBuilder, value: &T) -> u64 {
        builder.hash_one(value)
    }

    #[test]
    fn equal_keys_hash_equally_and_lengths_are_told_apart() {
        let b = FastHashBuilder::default();
        assert_eq!(hash_of(&b, "orders"), hash_of(&b, &String::from("orders")));
        let mut h1 = b.build_hasher();
        h1.write(b"a");
        let mut h2 = b.build_hasher();
        h2.write(b"a\0");
        assert_ne!(h1.finish(), h2.finish());
    }

    #[test]
    fn workload_like_topic_names_spread_over_low_bits() {
        // HashMap indexes buckets with the low bits: 100,000 names of the benchmark's shape must
        // not pile into a few of 2^17 buckets.
        let b = FastHashBuilder::default();
        let mut buckets = HashSet::new();
        for t in 0..1000 {
            for p in 0..100i32 {
                let name = format!("mirror-topic-{t:04}");
                buckets.insert(hash_of(&b, &(name.as_str(), p)) & ((1 << 17) - 1));
            }
        }
        // A uniform hash fills 1 - e^(-100000/131072) ≈ 53 % of the buckets (69,600).
        assert!(
            buckets.len() > 65_000,
            "only {} buckets used",
            buckets.len()
        );
    }

    #[test]
    fn builders_are_seeded_independently() {
        let seeds: HashSet<u64> = (0..8)
            .map(|_| hash_of(&FastHashBuilder::default(), "orders"))
            .collect();
        assert!(seeds.len() > 1);
    }
}
