//! The drivers' scratch: the handles or dual numbers they pass to `f`, one per input (and, for a
//! Jacobian, one per output), on the stack within a fixed budget, or on the heap with the `alloc`
//! feature. The tier dispatch is written here once.

use heapless::Vec;

use crate::TapeError;

/// The most stack, in bytes, that a driver's scratch may take: 32 KiB.
///
/// Every driver passes `f` a slice with one element per input (and, for a Jacobian, one per
/// output): its *scratch*, of `len` elements of a type `E` that each driver's `# Stack` section
/// names. Without allocation it lives on the stack in a buffer of `tier(len)` elements, where
/// `tier(len)` is the smallest of 16, 64, 256, 1024 and [`MAX_DIMENSION`] that is at least `len`
/// (below `4 len` once `len > 16`: a small problem takes a small frame). A driver therefore
/// takes
///
/// `tier(len) · size_of::<E>()` bytes of stack for its scratch,
///
/// and only where that is at most `SCRATCH_STACK_BYTES`. Above it the driver returns
/// [`TapeError::ScratchTooLarge`] (or [`TapeError::DimensionTooLarge`] past [`MAX_DIMENSION`])
/// before touching `f` or the tape; with the crate's `alloc` feature it puts the scratch on the
/// heap instead (`len · size_of::<E>()` bytes, no limit on `len`) and its stack use no longer
/// grows with `len`. The bound does not include the frames of `f` itself, nor the scratch of
/// drivers that [`gradcheck`](crate::gradcheck) calls in turn.
///
/// For example `size_of::<Dual<f64>>()` is 16, so [`gradient_forward`](crate::gradient_forward)
/// keeps up to 1024 inputs on the stack (16 KiB) and refuses 1025 without `alloc` (the next
/// tier, 4096 duals, is 64 KiB).
///
/// ```
/// use autograd_core::{gradient_forward, TapeError, Dual, Function, Number, SCRATCH_STACK_BYTES};
/// struct Sum;
/// impl Function for Sum {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x.iter().fold(T::zero(), |s, v| s + *v) }
/// }
/// let (x, mut g) = (vec![1.0; 1025], vec![0.0; 1025]);
/// let result = gradient_forward(&Sum, &x, &mut g);
/// if cfg!(feature = "alloc") {
///     assert_eq!(result, Ok(1025.0));
/// } else {
///     let bytes = 4096 * core::mem::size_of::<Dual<f64>>();
///     let max = SCRATCH_STACK_BYTES;
///     assert_eq!(result, Err(TapeError::ScratchTooLarge { len: 1025, bytes, max }));
/// }
/// gradient_forward(&Sum, &x[..1024], &mut g[..1024])?; // 16 KiB of stack
/// # Ok::<(), TapeError>(())
/// ```
pub const SCRATCH_STACK_BYTES: usize = 32 * 1024;

/// The largest number of inputs (and, for Jacobians, outputs) a driver accepts without the
/// `alloc` feature: the largest scratch tier (see [`SCRATCH_STACK_BYTES`], which usually binds
/// first). With `alloc` there is no such limit.
///
/// ```
/// use autograd_core::{gradient_forward, Function, Number, MAX_DIMENSION};
/// struct Sum;
/// impl Function for Sum {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         Number::sum(x)
///     }
/// }
/// let x = vec![1.0_f32; MAX_DIMENSION];
/// let mut g = vec![0.0_f32; MAX_DIMENSION];
/// gradient_forward(&Sum, &x, &mut g)?; // the largest size taken without `alloc`
/// assert!(g.iter().all(|&d| d == 1.0));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub const MAX_DIMENSION: usize = 4096;

/// Calls `body` with the `len` elements that `elements` yields (taken in order, only once the
/// place for them is settled): on the stack in the smallest tier that holds them if its bytes fit
/// [`SCRATCH_STACK_BYTES`], else on the heap (`alloc`) or not at all
/// ([`TapeError::ScratchTooLarge`]). Each tier is its own `#[inline(never)]` function, so only
/// the chosen tier's buffer occupies the stack.
#[inline]
pub(crate) fn with_scratch<E, R>(
    len: usize,
    elements: impl Iterator<Item = E>,
    body: impl FnOnce(&mut [E]) -> Result<R, TapeError>,
) -> Result<R, TapeError> {
    let size = core::mem::size_of::<E>();
    match tier(len) {
        Some(tier) if tier.saturating_mul(size) <= SCRATCH_STACK_BYTES => match tier {
            16 => on_stack::<16, E, R>(len, elements, body),
            64 => on_stack::<64, E, R>(len, elements, body),
            256 => on_stack::<256, E, R>(len, elements, body),
            1024 => on_stack::<1024, E, R>(len, elements, body),
            _ => on_stack::<MAX_DIMENSION, E, R>(len, elements, body),
        },
        tier => beyond_stack(len, tier, size, elements, body),
    }
}

/// The smallest tier holding `len` elements (the buffer sizes, in elements), if any.
fn tier(len: usize) -> Option<usize> {
    [16, 64, 256, 1024, MAX_DIMENSION]
        .into_iter()
        .find(|&t| len <= t)
}

#[inline(never)]
fn on_stack<const D: usize, E, R>(
    len: usize,
    elements: impl Iterator<Item = E>,
    body: impl FnOnce(&mut [E]) -> Result<R, TapeError>,
) -> Result<R, TapeError> {
    debug_assert!(len <= D);
    // Filled in place: returning the buffer by value would copy its whole capacity. The caller
    // checked `len <= D`, so every element fits.
    let mut buffer = Vec::<E, D>::new();
    for e in elements {
        if buffer.push(e).is_err() {
            break;
        }
    }
    body(&mut buffer)
}

/// Scratch that does not fit the stack budget: on the heap with `alloc`, else the error.
#[allow(unused_variables)] // which are used depends on the feature
fn beyond_stack<E, R>(
    len: usize,
    tier: Option<usize>,
    size: usize,
    elements: impl Iterator<Item = E>,
    body: impl FnOnce(&mut [E]) -> Result<R, TapeError>,
) -> Result<R, TapeError> {
    #[cfg(feature = "alloc")]
    {
        let mut buffer: alloc::vec::Vec<E> = elements.collect();
        body(&mut buffer)
    }
    #[cfg(not(feature = "alloc"))]
    Err(match tier {
        Some(tier) => TapeError::ScratchTooLarge {
            len,
            bytes: tier.saturating_mul(size),
            max: SCRATCH_STACK_BYTES,
        },
        None => TapeError::DimensionTooLarge {
            len,
            max: MAX_DIMENSION,
        },
    })
}
