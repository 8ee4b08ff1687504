//! A small deterministic generator (SplitMix64) for data generation, training and tests, so
//! that every run is reproducible from its seed without a dependency.

#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next value: the engine's one SplitMix64 step ([`crate::skill::splitmix64`]) of the
    /// state, which then advances by the same constant that step adds.
    pub fn next_u64(&mut self) -> u64 {
        let z = crate::skill::splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible for the small `n` used here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[-r, r)`.
    pub fn symmetric(&mut self, r: f32) -> f32 {
        (self.next_f32() * 2.0 - 1.0) * r
    }
}

/// Mixes a seed and an index into an independent stream seed (game `i` of run `seed`).
pub fn mix(seed: u64, index: u64) -> u64 {
    let mut r = SplitMix64::new(seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03));
    r.next_u64()
}
