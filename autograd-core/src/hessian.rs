//! Second order: Hessian-vector products and small Hessians.

use heapless::Vec;

use crate::gradient::{expect_len, fill, tiered};
use crate::{
    DiffError, Dual, DualVec, Function, Gradients, Mark, Scalar, TapeError, TapeView, Var,
};

/// `hv = H(x) v` (the Hessian of `f` times `v`) and `grad = ∇f(x)` by forward over reverse;
/// returns `f(x)`. Any `Tape<Dual<S>, N>` works; it is rewound to where it was on return.
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `v`, `grad` or `hv` differ in length from `x`;
/// [`DiffError::DimensionTooLarge`]; [`DiffError::Tape`] if the tape runs out of capacity.
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
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn hessian_vector_product<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<Dual<S>>,
    x: &[S],
    v: &[S],
    grad: &mut [S],
    hv: &mut [S],
) -> Result<S, DiffError> {
    let n = x.len();
    expect_len("direction", n, v.len())?;
    expect_len("gradient", n, grad.len())?;
    expect_len("Hessian-vector product", n, hv.len())?;
    tape.check()?;
    let mark = tape.mark();
    let result = tiered!(n, hvp_tier[S, F](f, &*tape, x, |i| v[i], grad, hv));
    tape.rewind(mark);
    result
}

/// One forward-over-reverse sweep with direction `v(i)`: writes the gradient and `H v`.
#[inline(never)]
fn hvp_tier<const D: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &TapeView<Dual<S>>,
    x: &[S],
    v: impl Fn(usize) -> S,
    grad: &mut [S],
    hv: &mut [S],
) -> Result<S, DiffError> {
    let mut i = 0;
    let mut vars = Vec::<_, D>::new();
    fill(&mut vars, x, |xi| {
        let var = tape.var(Dual::new(xi, v(i)));
        i += 1;
        var
    })?;
    let y: Var<'_, Dual<S>> = f.eval(&vars);
    if y.is_constant() {
        tape.check()?;
        grad.iter_mut()
            .chain(hv.iter_mut())
            .for_each(|o| *o = S::ZERO);
        return Ok(y.value().re);
    }
    let grads = sweep_above_inputs(tape, y, &vars)?;
    for ((var, g), h) in vars.iter().zip(grad.iter_mut()).zip(hv.iter_mut()) {
        let d = grads.wrt(*var);
        *g = d.re;
        *h = d.eps;
    }
    Ok(y.value().re)
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
///   needs the tape to hold the `n` inputs and the operations of `f` (nodes of `Dual<f64>` are 40 bytes). The
///   full Hessian is `n` HVPs, `v = e_1, ..., e_n`: `O(n)` gradients, the method of choice
///   unless `n` is tiny.
/// - **Forward over forward** ([`hessian_forward`]): evaluate `f` in `Dual<Dual<S>>` with input
///   `i` seeded in the inner and input `j` in the outer tangent: one pass per pair `i <= j`,
///   `n (n + 1) / 2` passes, each a few plain evaluations. No tape at all. Its pass count grows
///   as `n^2` against the `n` HVPs of forward over reverse: use it for a handful of inputs or
///   where no tape fits.
///
/// Both write the gradient too, which they get for free.
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `grad.len() != n` or `hess.len() != n * n`;
/// [`DiffError::DimensionTooLarge`]; [`DiffError::Tape`].
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
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn hessian<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<Dual<S>>,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, DiffError> {
    let n = x.len();
    expect_len("gradient", n, grad.len())?;
    hessian_shape(n, hess)?;
    tape.check()?;
    if n == 0 {
        return Ok(f.eval(x));
    }
    let mark = tape.mark();
    let mut value = S::ZERO;
    for j in 0..n {
        // Row j receives H e_j; transposed below.
        let row = &mut hess[j * n..(j + 1) * n];
        let unit = |i: usize| if i == j { S::ONE } else { S::ZERO };
        let result = tiered!(n, hvp_tier[S, F](f, &*tape, x, unit, grad, row));
        tape.rewind(mark);
        value = result?;
    }
    transpose(n, hess);
    Ok(value)
}

/// The full Hessian by forward over forward in `Dual<Dual<S>>`: `n (n + 1) / 2` passes, no tape;
/// `hess` row-major `n × n` (exactly symmetric), `grad = ∇f(x)`; returns `f(x)`.
///
/// # Errors
/// [`DiffError::LengthMismatch`] if `grad.len() != n` or `hess.len() != n * n`;
/// [`DiffError::DimensionTooLarge`].
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
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn hessian_forward<S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, DiffError> {
    let n = x.len();
    expect_len("gradient", n, grad.len())?;
    hessian_shape(n, hess)?;
    if n == 0 {
        return Ok(f.eval(x));
    }
    tiered!(n, hessian_forward_tier[S, F](f, x, grad, hess))
}

#[inline(never)]
fn hessian_forward_tier<const D: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, DiffError> {
    let n = x.len();
    let mut xs = Vec::<_, D>::new();
    fill(&mut xs, x, |xi| Dual::constant(Dual::constant(xi)))?;
    let mut value = S::ZERO;
    for i in 0..n {
        xs[i].re.eps = S::ONE;
        for j in i..n {
            xs[j].eps.re = S::ONE;
            let y: Dual<Dual<S>> = f.eval(&xs);
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
    Ok(value)
}

/// The full Hessian by forward over reverse with `L` tangent lanes: a tape of
/// [`DualVec<S, L>`] carries `L` Hessian columns per sweep, so `ceil(n / L)` recordings and
/// backward sweeps instead of the `n` of [`hessian`] (each costlier: every adjoint carries `L`
/// lanes, and a node of `DualVec<f64, 8>` is 152 bytes). Same layout, result (bit for bit) and errors as
/// [`hessian`]; `L = 0` does not compile.
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
/// # Ok::<(), autograd_core::DiffError>(())
/// ```
pub fn hessian_vec<const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<DualVec<S, L>>,
    x: &[S],
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, DiffError> {
    const { assert!(L > 0, "a DualVec driver needs at least one lane") };
    let n = x.len();
    expect_len("gradient", n, grad.len())?;
    hessian_shape(n, hess)?;
    tape.check()?;
    if n == 0 {
        return Ok(f.eval(x));
    }
    let mark = tape.mark();
    let mut value = S::ZERO;
    for start in (0..n).step_by(L) {
        let result = tiered!(n, hessian_lanes_tier[L, S, F](f, &*tape, x, start, grad, hess));
        tape.rewind(mark);
        value = result?;
    }
    Ok(value)
}

/// One sweep seeding inputs `start .. start + L` in lanes `0 .. L`: writes the gradient and
/// Hessian columns `start .. start + L`.
#[inline(never)]
/// Backward from `y`, sweeping only down to the first input (nothing below it depends on them).
fn sweep_above_inputs<'t, S: Scalar>(
    tape: &'t TapeView<S>,
    y: Var<'_, S>,
    vars: &[Var<'_, S>],
) -> Result<Gradients<'t, S>, TapeError> {
    match vars.first().and_then(|v| v.id()) {
        Some(first) => tape.backward_above(y, Mark::before(first)),
        None => tape.backward(y),
    }
}

fn hessian_lanes_tier<const D: usize, const L: usize, S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &TapeView<DualVec<S, L>>,
    x: &[S],
    start: usize,
    grad: &mut [S],
    hess: &mut [S],
) -> Result<S, DiffError> {
    let n = x.len();
    let lanes = L.min(n - start);
    let mut i: usize = 0;
    let mut vars = Vec::<_, D>::new();
    fill(&mut vars, x, |xi| {
        // Lanes past L (and inputs before `start`) are constants in this sweep.
        let seeded = match i.checked_sub(start) {
            Some(k) => DualVec::variable(xi, k),
            None => DualVec::constant(xi),
        };
        i += 1;
        tape.var(seeded)
    })?;
    let y: Var<'_, DualVec<S, L>> = f.eval(&vars);
    let grads = if y.is_constant() {
        tape.check()?;
        None
    } else {
        Some(sweep_above_inputs(tape, y, &vars)?)
    };
    for (i, var) in vars.iter().enumerate() {
        let d = grads.map_or(DualVec::constant(S::ZERO), |g| g.wrt(*var));
        grad[i] = d.re;
        hess[i * n + start..i * n + start + lanes].copy_from_slice(&d.eps[..lanes]);
    }
    Ok(y.value().re)
}

fn hessian_shape<S>(n: usize, hess: &[S]) -> Result<(), DiffError> {
    let expected = n.checked_mul(n).ok_or(DiffError::DimensionTooLarge {
        len: n,
        max: crate::MAX_DIMENSION,
    })?;
    expect_len("Hessian", expected, hess.len())
}

fn transpose<S: Copy>(n: usize, m: &mut [S]) {
    for i in 0..n {
        for j in i + 1..n {
            m.swap(i * n + j, j * n + i);
        }
    }
}
