//! Low-level helpers for the hot paths: a fixed-capacity list that skips
//! initialising its storage, running code with the CPU's `popcnt`
//! instruction when it has one, and a cache prefetch hint. This is the
//! engine's only `unsafe` code; each block states why it is sound.

use std::mem::MaybeUninit;

/// A stack list of at most `N` `Copy` values. Unlike `[T; N]` it does not
/// write its storage when created: the move picker makes one per node
/// (quiescence nodes included), and zeroing a few kilobytes each time
/// costs more than generating the moves.
pub struct ArrayList<T: Copy, const N: usize> {
    items: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: Copy, const N: usize> ArrayList<T, N> {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> Self {
        ArrayList {
            items: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }

    /// Append `v`. Panics when full.
    #[inline(always)]
    pub fn push(&mut self, v: T) {
        self.items[self.len] = MaybeUninit::new(v);
        self.len += 1;
    }

    /// Number of values pushed.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was pushed.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The values pushed, in order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `push` is the only way to grow `len`, and it initialises
        // each slot below `len` first; `MaybeUninit<T>` has `T`'s layout.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }

    /// The values pushed, mutable.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; the borrow of `self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }
}

/// Run `f` compiled with the `popcnt` instruction when the CPU has it (any
/// x86-64 CPU since 2008), else as it is. The default x86-64 target counts
/// bits with a dozen instructions; the evaluation counts bits ~50 times.
/// `f` and what it calls must be inlined into it to benefit.
#[inline(always)]
pub fn with_popcnt<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return unsafe { popcnt_enabled(f) };
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
#[inline]
fn popcnt_enabled<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Hint the CPU to bring `value`'s cache line into L1 (a no-op off x86-64).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `prefetch` is a hint that never faults, and SSE (which
        // provides it) is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushed_values_come_back_in_order() {
        let mut l = ArrayList::<u32, 4>::new();
        assert!(l.is_empty());
        for v in [7, 3, 9] {
            l.push(v);
        }
        assert_eq!(l.as_slice(), &[7, 3, 9]);
        l.as_mut_slice().swap(0, 2);
        assert_eq!((l.len(), l.as_slice()), (3, &[9, 3, 7][..]));
    }

    #[test]
    #[should_panic]
    fn pushing_past_capacity_panics() {
        let mut l = ArrayList::<u8, 1>::new();
        l.push(1);
        l.push(2);
    }
}
