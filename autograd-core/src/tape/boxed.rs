//! A tape placed on the heap and initialized where it lies (cargo feature `alloc`).
//!
//! `Box::new(Tape::new())` builds the tape first and moves it: an optimized build usually
//! elides the move, a debug build does not, and a tape of a million `f64` slots (24 MB) then
//! overflows an 8 MiB main-thread stack. Safe Rust has no way to build a value inside a fresh
//! allocation, so this is the core's one `unsafe` block: it writes every field of the tape
//! through raw pointers into `Box::new_uninit`'s memory, then declares it initialized.
//! `tests/boxed.rs` builds such a tape on a thread of 64 KiB of stack, and runs under Miri
//! (`cargo xtask miri`).

use alloc::boxed::Box;
use core::ptr::addr_of_mut;

use super::{Scalar, Tape, TapeView};

impl<S: Scalar, const N: usize> Tape<S, N> {
    /// An empty tape on the heap that never passes through the stack, whatever `N` and in
    /// every build profile (cargo feature `alloc`).
    ///
    /// Use it for tapes too large for a stack frame: [`slot_bytes`](crate::slot_bytes)`::<S>() *
    /// N` bytes (24 per slot in `f64`). It behaves exactly like [`Tape::new`]'s tape.
    ///
    /// ```
    /// use autograd_core::Tape;
    ///
    /// let tape = Tape::<f64, 1_000_000>::boxed(); // 24 MB, none of it on the stack
    /// let x = tape.var(3.0);
    /// let y = x * x;
    /// assert_eq!(tape.backward(y)?.wrt(x), 6.0);
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    ///
    /// # Panics
    /// Only as `Box::new` does: if the allocator cannot provide the memory it aborts (see
    /// [`handle_alloc_error`](https://doc.rust-lang.org/alloc/alloc/fn.handle_alloc_error.html)).
    #[allow(unsafe_code)]
    pub fn boxed() -> Box<Self> {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_FITS;
        // The initial state, from the one constructor that defines it. Destructuring without
        // `..` makes a field added to `TapeView` fail to compile here until it is written below.
        let TapeView {
            error,
            len,
            leaf_run,
            dirty,
            seed,
            overflow,
            sweeps,
            tag,
            scalar,
            units: [],
        } = Tape::<S, 0>::new().inner;
        let mut tape = Box::<Self>::new_uninit();
        let ptr = tape.as_mut_ptr();
        // SAFETY: `ptr`, and `view` derived from it, point into the live, uninitialized allocation `tape` owns, sized and
        // aligned for `Self` (`addr_of_mut!` makes raw field pointers without creating a
        // reference to uninitialized memory). Each field of `TapeView`, the only field of
        // `Tape`, is written exactly once with `ptr::write`, which drops nothing: the nine
        // fields above from `Tape::new`'s values, and the `N` elements of `units` through a
        // pointer to the array's first element (an array of `N` elements is `N` contiguous
        // elements, so `add(i)` for `i < N` stays inside it). Nothing between the allocation and
        // `assume_init` can panic. Every field is then initialized (padding need not be), so
        // the value is a valid `Self` and `assume_init` is sound.
        unsafe {
            let view = addr_of_mut!((*ptr).inner);
            addr_of_mut!((*view).error).write(error);
            addr_of_mut!((*view).len).write(len);
            addr_of_mut!((*view).leaf_run).write(leaf_run);
            addr_of_mut!((*view).dirty).write(dirty);
            addr_of_mut!((*view).seed).write(seed);
            addr_of_mut!((*view).overflow).write(overflow);
            addr_of_mut!((*view).sweeps).write(sweeps);
            addr_of_mut!((*view).tag).write(tag);
            addr_of_mut!((*view).scalar).write(scalar);
            let first = addr_of_mut!((*view).units).cast::<S::Unit>();
            for i in 0..N {
                first.add(i).write(S::EMPTY_UNIT);
            }
            tape.assume_init()
        }
    }
}
