//! Second order: Hessian-vector products and small Hessians.

use crate::diff_error::{expect_len, hessian_shape};
use crate::drive::{forward_over_reverse, Tangents};
use crate::scratch::with_scratch;
use crate::{Dual, DualVec, Function, Scalar, TapeError, TapeView};

/// `hv = H(x) v` (the Hessian of `f` times `v`) and `grad = ∇f(x)` by forward over reverse;
/// returns `f(x)`. Any `Tape<Dual<S>, N>` works; it is rewound to where it was on return.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `v`, `grad` or `hv` differ in length from `x`;
/// [`TapeError::ScratchTooLarge`] where the scratch does not fit the stack (without `alloc`);
/// [`Error::CapacityExceeded`](crate::Error::CapacityExceeded) if the tape runs out of capacity.
///
/// # Stack
/// `tier(n) · size_of::<Var<Dual<S>>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{hessian_vector_product, Dual, Function, Number, Tape};
/// struct F; // x0^2 x1: H = [[2 x1, 2 x0], [2 x0, 0]]
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0].square() * x[1] }
/// }
/// let mut tape = Tape::<Dual<f64>, 16>::new();
/// let (mut g, mut hv) = ([0.0; 2], [0.0; 2]);
/// hessian_vector_product(&F, &mut tape, &[3.0, 2.0], &[1.0, -1.0], &mut g, &mut hv)?;
/// assert_eq!(g, [12.0, 9.0]);
/// assert_eq!(hv, [4.0 - 6.0, 6.0]);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn hessian_vector_product<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<Dual<S>>,
    x: &[S],
    v: &[S],
    grad: &mut [S],
    hv: &mut [S],
) -> Result<S, TapeError> {
    let n = x.len();
    expect_len("direction", n, v.len())?;
    expect_len("gradient", n, grad.len())?;
    expect_len("Hessian-vector product", n, hv.len())?;
    let seeds = x.iter().zip(v).map(|(&xi, &vi)| Dual::new(xi, vi));
    forward_over_reverse(f, tape, n, seeds, |i, d: Dual<S>| {
        grad[i] = d.re;
        hv[i] = d.eps;
    })
}

/// The full Hessian by `n` forward-over-reverse sweeps (one [`hessian_vector_product`] per unit
/// vector): `hess[i * n + j] = ∂²f/∂x_i∂x_j` (row-major `n × n`), `grad = ∇f(x)`; returns
/// `f(x)`. Cost: `n` recordings and backward sweeps in `Dual<S>` arithmetic. The result is
/// symmetric up to rounding (entry `(i, j)` is component `i` of `H e_j`).
///
/// # Which method, and its cost
/// - **Forward over reverse** ([`hessian_vector_product`], [`hessian`]): record `f` on a tape whose
///   scalar is [`Dual<S>`], each input `x_i + v_i ε`. The backward sweep then differentiates the
///   gradient in direction `v`: the adjoints are `∇f + (H v) ε`. One HVP costs one recording and
///   one backward sweep in dual arithmetic (each operation on two numbers instead of one) and
///   needs the tape to hold the `n` inputs and the statements of `f` (slots of `Dual<f64>` are
///   40 bytes). The full Hessian is `n` HVPs, `v = e_1, ..., e_n`: `O(n)` gradients, the method
///   of choice unless `n` is tiny.
/// - **Forward over forward** ([`hessian_forward`]): evaluate `f` in `Dual<Dual<S>>` with input
///   `i` seeded in the inner and input `j` in the outer tangent: one pass per pair `i <= j`,
///   `n (n + 1) / 2` passes, each a few plain evaluations. No tape at all. Its pass count grows
///   as `n^2` against the `n` HVPs of forward over reverse: use it for a handful of inputs or
///   where no tape fits.
///
/// Both write the gradient too, which they get for free.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `grad.len() != n` or `hess.len() != n * n`;
/// [`TapeError::ScratchTooLarge`] where the scratch does not fit the stack (without `alloc`);
/// [`Error::CapacityExceeded`](crate::Error::CapacityExceeded).
///
/// # Stack
/// `tier(n) · size_of::<Var<Dual<S>>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{hessian, Dual, Function, Number, Tape};
/// struct F; // x0^3 + x0 x1: H = [[6 x0, 1], [1, 0]]
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0].powi(3) + x[0] * x[1] }
/// }
/// let mut tape = Tape::<Dual<f64>, 16>::new();
/// let (mut g, mut h) = ([0.0; 2], [0.0; 4]);
/// hessian(&F, &mut tape, &[2.0, 5.0], &mut g, &mut h)?;
/// assert_eq!(g, [12.0 + 5.0, 2.0]);
/// assert_eq!(h, [12.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn hessian<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<Dual<S>>,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, TapeError> {
    hessian_by_lanes(f, tape, x, grad, hess)
}

/// The full Hessian by forward over forward in `Dual<Dual<S>>`: `n (n + 1) / 2` passes, no tape;
/// `hess` row-major `n × n` (exactly symmetric), `grad = ∇f(x)`; returns `f(x)`.
///
/// # Errors
/// [`TapeError::LengthMismatch`] if `grad.len() != n` or `hess.len() != n * n`;
/// [`TapeError::ScratchTooLarge`] where the scratch does not fit the stack (without `alloc`).
///
/// # Stack
/// `tier(n) · size_of::<Dual<Dual<S>>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{hessian_forward, Function, Number};
/// struct F; // sin(x0) x1: H = [[-sin x0 x1, cos x0], [cos x0, 0]]
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0].sin() * x[1] }
/// }
/// let (mut g, mut h) = ([0.0; 2], [0.0; 4]);
/// hessian_forward(&F, &[0.0, 3.0], &mut g, &mut h)?;
/// assert_eq!(g, [3.0, 0.0]);
/// assert_eq!(h, [0.0, 1.0, 1.0, 0.0]);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn hessian_forward<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, TapeError> {
    hessian_shape(x.len(), grad, hess)?;
    if x.is_empty() {
        return Ok(f.eval(x));
    }
    let xs = x.iter().map(|&xi| Dual::constant(Dual::constant(xi)));
    with_scratch(x.len(), xs, |xs| {
        Ok(forward_over_forward(f, xs, grad, hess))
    })
}

/// Input `i` seeded in the inner and input `j` in the outer tangent, one pass per pair `i <= j`;
/// returns `f(x)`.
fn forward_over_forward<S: Scalar, F: Function + ?Sized>(
    f: &F,
    xs: &mut [Dual<Dual<S>>],
    grad: &mut [S],
    hess: &mut [S],
) -> S {
    let n = xs.len();
    let mut value = S::ZERO;
    for i in 0..n {
        xs[i].re.eps = S::ONE;
        for j in i..n {
            xs[j].eps.re = S::ONE;
            let y: Dual<Dual<S>> = f.eval(xs);
            xs[j].eps.re = S::ZERO;
            hess[i * n + j] = y.eps.eps;
            hess[j * n + i] = y.eps.eps;
            if j == i {
                grad[i] = y.re.eps;
                value = y.re.re;
            }
        }
        xs[i].re.eps = S::ZERO;
    }
    value
}

/// The full Hessian by forward over reverse with `L` tangent lanes: a tape of [`DualVec<S, L>`]
/// carries `L` Hessian columns per sweep, so `ceil(n / L)` recordings and backward sweeps instead
/// of the `n` of [`hessian`] (each costlier: every adjoint carries `L` lanes, and a node of
/// `DualVec<f64, 8>` is 152 bytes). Same layout, result (bit for bit) and errors as [`hessian`];
/// `L = 0` does not compile.
///
/// # Stack
/// `tier(n) · size_of::<Var<DualVec<S, L>>>()` bytes of scratch, at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES) (where `tier` and the `alloc` feature are
/// explained).
///
/// ```
/// use autograd_core::{hessian_vec, DualVec, Function, Number, Tape};
/// struct F; // x0^2 x1 + x2^3: H = [[2 x1, 2 x0, 0], [2 x0, 0, 0], [0, 0, 6 x2]]
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T { x[0].square() * x[1] + x[2].powi(3) }
/// }
/// let mut tape = Tape::<DualVec<f64, 2>, 32>::new();
/// let (mut g, mut h) = ([0.0; 3], [0.0; 9]);
/// hessian_vec(&F, &mut tape, &[1.0, 2.0, 3.0], &mut g, &mut h)?; // 2 sweeps
/// assert_eq!(g, [4.0, 1.0, 27.0]);
/// assert_eq!(h, [4.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 18.0]);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn hessian_vec<const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<DualVec<S, L>>,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, TapeError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    hessian_by_lanes(f, tape, x, grad, hess)
}

/// Forward over reverse with `T::LANES` columns per sweep: sweep `k` seeds inputs
/// `kL .. kL + L` in lanes `0 .. L`, and the adjoint of input `i` carries `∂f/∂x_i` and row `i`
/// of those columns of the Hessian.
fn hessian_by_lanes<S: Scalar, T: Tangents<S>, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<T>,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, TapeError> {
    let n = x.len();
    hessian_shape(n, grad, hess)?;
    tape.check()?;
    if n == 0 {
        return Ok(f.eval(x));
    }
    let mut value = S::ZERO;
    for start in (0..n).step_by(T::LANES) {
        let lanes = T::LANES.min(n - start);
        let seeds = x.iter().enumerate().map(|(i, &xi)| {
            let mut d = T::constant_of(xi);
            if (start..start + lanes).contains(&i) {
                d.set_tangent(i - start, S::ONE);
            }
            d
        });
        value = forward_over_reverse(f, tape, n, seeds, |i, d: T| {
            grad[i] = d.real();
            for k in 0..lanes {
                hess[i * n + start + k] = d.tangent(k);
            }
        })?;
    }
    Ok(value)
}
