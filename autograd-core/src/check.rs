//! Gradient checks: compare gradients element-wise and report the worst element, and run the
//! checks PyTorch's `gradcheck` makes, across reverse mode, forward mode and central differences.

use core::fmt;

use crate::diff_error::expect_len;
use crate::drive::{record, write_gradient};
use crate::scratch::with_scratch;
use crate::{
    directional_derivative, gradient_central, gradient_forward, gradient_reverse, Function, Scalar,
    TapeError, TapeView, Var,
};

/// Absolute and relative tolerance of [`compare`]: `|a - b| <= atol + rtol·|b|`.
///
/// # The rule and the default tolerances
/// An element passes when `|a - b| <= atol + rtol·|b|` (`b` the reference; PyTorch's `allclose`
/// rule), or `a == b` (so equal infinities pass); a NaN never passes. The defaults depend on what
/// is compared and on the scalar's machine epsilon `ε`:
///
/// - [`Tolerance::between_modes`] (reverse vs forward, both exact up to rounding):
///   `atol = rtol = 4096 ε`, i.e. **9.1e-13 in `f64`** and **4.9e-4 in `f32`**. The two modes
///   apply the same chain rule in different association orders, so each is off by a few ulps per
///   operation, amplified by cancellation; 4096 ulps covers expressions of hundreds of operations
///   with moderate cancellation, and still catches any wrong rule (which is off by O(1)).
///   Measured: every single operation agrees to 3e-17 (`f64`) and 7e-9 (`f32`); 200,000 random
///   compositions of up to 8 operations to 1.2e-15 (`f64`) and 4.5e-7 (`f32`), relative to
///   `1 + |g|`.
/// - [`Tolerance::finite_differences`] (a mode vs central differences): `atol = rtol = 64 √ε`,
///   i.e. **9.5e-7 in `f64`** and **2.2e-2 in `f32`**. Central differences with the step of
///   [`central_step`](crate::central_step) have error `ε^(2/3) · C`, where `C` grows with the
///   curvature (`|f'''|` against `|f'|`) and with `|f|` against `|f'|` (the rounding error is
///   `ε |f| / h`). For a well-scaled function `C ~ 1`, so they bottom out near 1e-10 relative in
///   `f64` and 1e-4..1e-5 in `f32`. Measured (the tests): every single operation at 4-6 points,
///   worst 8e-10 in `f64` and 5e-4 in `f32`; 200,000 random smooth compositions of up to 8
///   operations, up to 5e-8 in `f64` (relative to `1 + |g|`). The default leaves room for
///   `C` up to ~10^4 in `f64` (close to PyTorch gradcheck's `atol = 1e-5`) and ~10^3 in `f32`,
///   while a wrong derivative rule, typically off by O(1), still fails.
///
/// ```
/// use autograd_core::Tolerance;
/// let t = Tolerance::finite_differences::<f64>();
/// assert!(t.allows(2.0 + 1e-7, 2.0) && !t.allows(2.1, 2.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance (matters where the reference is near 0).
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

impl Tolerance {
    /// A tolerance with the given absolute and relative parts.
    ///
    /// ```
    /// use autograd_core::Tolerance;
    /// let t = Tolerance::new(1e-12, 1e-6);
    /// assert!(t.allows(1.0 + 5e-7, 1.0)); // within 1e-12 + 1e-6 * 1
    /// assert!(t.allows(1e-13, 0.0)); // near 0, the absolute part
    /// assert!(!t.allows(1e-11, 0.0));
    /// ```
    pub const fn new(atol: f64, rtol: f64) -> Self {
        Tolerance { atol, rtol }
    }

    /// Default for comparing two exact modes (reverse vs forward): `4096 ε` for both parts
    /// (9.1e-13 in `f64`, 4.9e-4 in `f32`). See the [type docs](Tolerance) for why.
    ///
    /// ```
    /// use autograd_core::Tolerance;
    /// assert!((Tolerance::between_modes::<f64>().rtol - 9.09e-13).abs() < 1e-15);
    /// ```
    pub fn between_modes<S: Scalar>() -> Self {
        let t = 4096.0 * S::EPSILON;
        Tolerance::new(t, t)
    }

    /// Default for comparing a mode against central differences: `64 √ε` for both parts
    /// (9.5e-7 in `f64`, 2.2e-2 in `f32`). See the [type docs](Tolerance) for why.
    ///
    /// ```
    /// use autograd_core::Tolerance;
    /// assert!((Tolerance::finite_differences::<f64>().rtol - 9.54e-7).abs() < 1e-9);
    /// assert!((Tolerance::finite_differences::<f32>().rtol - 2.21e-2).abs() < 1e-4);
    /// ```
    pub fn finite_differences<S: Scalar>() -> Self {
        let t = 64.0 * libm::sqrt(S::EPSILON);
        Tolerance::new(t, t)
    }

    /// `true` if `actual` is within tolerance of `expected`.
    ///
    /// ```
    /// use autograd_core::Tolerance;
    /// let t = Tolerance::new(0.0, 1e-3);
    /// assert!(t.allows(100.05, 100.0)); // 0.05 <= 1e-3 * 100
    /// assert!(!t.allows(100.5, 100.0));
    /// assert!(t.allows(f64::INFINITY, f64::INFINITY));
    /// assert!(!t.allows(f64::NAN, f64::NAN));
    /// ```
    #[inline]
    pub fn allows(&self, actual: f64, expected: f64) -> bool {
        actual == expected || libm::fabs(actual - expected) <= self.bound(expected)
    }

    #[inline]
    fn bound(&self, expected: f64) -> f64 {
        self.atol + self.rtol * libm::fabs(expected)
    }

    /// How far past its bound an error is (`<= 1` passes; infinite for NaN).
    fn excess(&self, actual: f64, expected: f64) -> f64 {
        if actual == expected {
            return 0.0;
        }
        let e = libm::fabs(actual - expected) / self.bound(expected);
        if e.is_nan() {
            f64::INFINITY
        } else {
            e
        }
    }
}

/// One element of a comparison: where, both values, and its errors.
///
/// ```
/// use autograd_core::{compare, Tolerance};
/// let c = compare(&[3.0, 4.5], &[3.0, 4.0], Tolerance::new(0.0, 1e-3))?;
/// let worst = c.worst.unwrap();
/// assert_eq!((worst.index, worst.actual, worst.expected), (1, 4.5, 4.0));
/// assert_eq!((worst.abs_error, worst.rel_error), (0.5, 0.125));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementError {
    /// Index into the compared slices.
    pub index: usize,
    /// The value checked.
    pub actual: f64,
    /// The reference value.
    pub expected: f64,
    /// `|actual - expected|`.
    pub abs_error: f64,
    /// `|actual - expected| / |expected|` (infinite if `expected` is 0 and they differ).
    pub rel_error: f64,
}

impl fmt::Display for ElementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}]: {} vs {} (abs error {:.2e}, rel error {:.2e})",
            self.index, self.actual, self.expected, self.abs_error, self.rel_error
        )
    }
}

/// The result of [`compare`]: pass/fail and the worst element.
///
/// ```
/// use autograd_core::{compare, Tolerance};
/// let c = compare(&[1.0, 2.0, 3.5], &[1.0, 2.0, 3.0], Tolerance::new(1e-9, 1e-9))?;
/// assert_eq!((c.passed, c.failures, c.len), (false, 1, 3));
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// `true` if every element is within tolerance.
    pub passed: bool,
    /// Number of elements outside tolerance.
    pub failures: usize,
    /// Number of elements compared.
    pub len: usize,
    /// The tolerance applied.
    pub tolerance: Tolerance,
    /// The element furthest outside (or closest to) its bound, the first of equally far ones;
    /// `None` for empty slices.
    pub worst: Option<ElementError>,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed { "pass" } else { "FAIL" };
        write!(f, "{verdict} ({} of {} outside", self.failures, self.len)?;
        write!(
            f,
            " |a - b| <= {:.1e} + {:.1e}·|b|)",
            self.tolerance.atol, self.tolerance.rtol
        )?;
        if let Some(w) = &self.worst {
            write!(f, "; worst {w}")?;
        }
        Ok(())
    }
}

/// Compares `actual` against the reference `expected` element-wise with
/// `|a - b| <= atol + rtol·|b|`, and reports the worst element (largest error relative to its
/// bound).
///
/// # Errors
/// [`TapeError::LengthMismatch`] if the slices differ in length.
///
/// ```
/// use autograd_core::{compare, Tolerance};
/// let c = compare(&[1.0, 2.0 + 1e-9, 3.0], &[1.0, 2.0, 3.0], Tolerance::new(1e-12, 1e-12))?;
/// assert!(!c.passed);
/// let w = c.worst.unwrap();
/// assert_eq!(w.index, 1);
/// assert!((w.abs_error - 1e-9).abs() < 1e-15 && (w.rel_error - 5e-10).abs() < 1e-15);
/// assert!(compare(&[1.0, 2.0], &[1.0, 2.0], Tolerance::between_modes::<f64>())?.passed);
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn compare<S: Scalar>(
    actual: &[S],
    expected: &[S],
    tolerance: Tolerance,
) -> Result<Comparison, TapeError> {
    expect_len("compared", expected.len(), actual.len())?;
    let mut failures = 0;
    let mut worst: Option<(f64, ElementError)> = None;
    for (index, (a, b)) in actual.iter().zip(expected).enumerate() {
        let (a, b) = (a.to_f64(), b.to_f64());
        if !tolerance.allows(a, b) {
            failures += 1;
        }
        let excess = tolerance.excess(a, b);
        if worst.as_ref().is_none_or(|(e, _)| excess > *e) {
            let abs_error = if a == b { 0.0 } else { libm::fabs(a - b) };
            let rel_error = if abs_error == 0.0 {
                0.0
            } else {
                abs_error / libm::fabs(b)
            };
            worst = Some((
                excess,
                ElementError {
                    index,
                    actual: a,
                    expected: b,
                    abs_error,
                    rel_error,
                },
            ));
        }
    }
    Ok(Comparison {
        passed: failures == 0,
        failures,
        len: actual.len(),
        tolerance,
        worst: worst.map(|(_, w)| w),
    })
}

/// Everything [`gradcheck`] found.
///
/// ```
/// use autograd_core::{gradcheck, testkit::Rosenbrock, Tape};
/// let mut tape = Tape::<f64, 64>::new();
/// let report = gradcheck(&Rosenbrock, &mut tape, &[-1.2, 1.0, 0.5])?;
/// assert!(report.reverse_vs_forward.passed && report.reverse_vs_central.passed);
/// assert!(report.backward_twice_identical && report.values_agree);
/// assert!(report.passed());
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GradcheckReport {
    /// Reverse-mode gradient (checked) vs forward mode (reference).
    pub reverse_vs_forward: Comparison,
    /// Reverse-mode gradient (checked) vs central differences (reference).
    pub reverse_vs_central: Comparison,
    /// Two backward sweeps over one recording gave bit-identical gradients.
    pub backward_twice_identical: bool,
    /// Reverse mode with a zero seed (the output scaled by 0) gave all-zero gradients.
    pub zero_seed_gives_zero: bool,
    /// Forward mode with a zero tangent gave an exactly zero derivative.
    pub zero_tangent_gives_zero: bool,
    /// `f(x)` came out bit-identical plainly, on the tape and in forward mode.
    pub values_agree: bool,
}

impl GradcheckReport {
    /// `true` if every check passed.
    ///
    /// ```
    /// use autograd_core::{gradcheck, Function, Number, Tape};
    /// struct Cube;
    /// impl Function for Cube {
    ///     fn eval<T: Number>(&self, x: &[T]) -> T {
    ///         x[0].powi(3) + x[1].sin()
    ///     }
    /// }
    /// let mut tape = Tape::<f64, 32>::new();
    /// let report = gradcheck(&Cube, &mut tape, &[0.7, -1.2])?;
    /// assert!(report.passed(), "{report}");
    /// # Ok::<(), autograd_core::TapeError>(())
    /// ```
    pub fn passed(&self) -> bool {
        self.reverse_vs_forward.passed
            && self.reverse_vs_central.passed
            && self.backward_twice_identical
            && self.zero_seed_gives_zero
            && self.zero_tangent_gives_zero
            && self.values_agree
    }
}

impl fmt::Display for GradcheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yes = |b: bool| if b { "yes" } else { "NO" };
        let verdict = if self.passed() { "passed" } else { "FAILED" };
        writeln!(f, "gradcheck {verdict}")?;
        writeln!(f, "  reverse vs forward: {}", self.reverse_vs_forward)?;
        writeln!(
            f,
            "  reverse vs central differences: {}",
            self.reverse_vs_central
        )?;
        writeln!(
            f,
            "  backward twice identical: {}",
            yes(self.backward_twice_identical)
        )?;
        writeln!(
            f,
            "  zero seed gives zero gradient: {}",
            yes(self.zero_seed_gives_zero)
        )?;
        writeln!(
            f,
            "  zero tangent gives zero derivative: {}",
            yes(self.zero_tangent_gives_zero)
        )?;
        write!(f, "  values agree across modes: {}", yes(self.values_agree))
    }
}

/// Checks the derivatives of `f` at `x` every way this crate can: the reverse-mode gradient
/// against forward mode ([`Tolerance::between_modes`]) and against central differences
/// ([`Tolerance::finite_differences`]), plus PyTorch gradcheck's extra checks (two backward
/// sweeps agree bit for bit; a zero seed gives a zero gradient) and their forward-mode
/// counterparts. The tape (which needs room for `f`) is rewound to where it was on return.
///
/// Central differences are only as good as `ε |f| / h` allows: where `|f|` is large against a
/// partial derivative (a sum of many large terms, e.g. Rosenbrock with n = 1000 at
/// `x_i = 0.5 + 0.01 i`, where `f ≈ 2e8` and some partials are ≈ 2) the finite-difference
/// comparison fails on correct code, as PyTorch's would; check on small instances instead.
///
/// # Errors
/// [`TapeError::ScratchTooLarge`] where a scratch does not fit the stack (without `alloc`);
/// [`Error::CapacityExceeded`](crate::Error::CapacityExceeded) if the tape runs out of capacity.
/// A wrong derivative is not an error: it is a report that did not pass.
///
/// # Stack
/// `tier(3n) · size_of::<S>()` bytes of scratch for the three gradients, each at most
/// [`SCRATCH_STACK_BYTES`](crate::SCRATCH_STACK_BYTES), plus the scratch of the drivers it calls
/// in turn (the largest is [`gradient_reverse`]'s), so at most twice that bound.
///
/// ```
/// use autograd_core::{gradcheck, Function, Number, Tape};
/// struct F; // tanh(x^3 + 2x + 1): the seed's finite-difference exercise
/// impl Function for F {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         (x[0].powi(3) + T::from_f64(2.0) * x[0] + T::one()).tanh()
///     }
/// }
/// let mut tape = Tape::<f64, 32>::new();
/// let report = gradcheck(&F, &mut tape, &[0.5])?;
/// assert!(report.passed(), "{report}");
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradcheck<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
) -> Result<GradcheckReport, TapeError> {
    gradcheck_with(
        f,
        tape,
        x,
        Tolerance::between_modes::<S>(),
        Tolerance::finite_differences::<S>(),
    )
}

/// [`gradcheck`] with explicit tolerances for the mode comparison and the finite-difference
/// comparison.
///
/// # Errors
/// As [`gradcheck`].
///
/// # Stack
/// As [`gradcheck`].
///
/// ```
/// use autograd_core::{gradcheck_with, Function, Number, Tape, Tolerance};
/// struct Sqrt;
/// impl Function for Sqrt {
///     fn eval<T: Number>(&self, x: &[T]) -> T {
///         x[0].sqrt()
///     }
/// }
/// let mut tape = Tape::<f32, 32>::new();
/// // Near the pole at 0 central differences in f32 need a looser tolerance than the default.
/// let loose = Tolerance::new(1e-2, 5e-2);
/// let modes = Tolerance::between_modes::<f32>();
/// let report = gradcheck_with(&Sqrt, &mut tape, &[0.01], modes, loose)?;
/// assert!(report.passed(), "{report}");
/// # Ok::<(), autograd_core::TapeError>(())
/// ```
pub fn gradcheck_with<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    modes: Tolerance,
    finite: Tolerance,
) -> Result<GradcheckReport, TapeError> {
    tape.check()?;
    let n = x.len();
    with_scratch(
        n.saturating_mul(3),
        core::iter::repeat_n(S::ZERO, n.saturating_mul(3)),
        |scratch| {
            let (rev, rest) = scratch.split_at_mut(n);
            let (fwd, fd) = rest.split_at_mut(n);
            gradcheck_in(f, tape, x, modes, finite, [rev, fwd, fd])
        },
    )
}

/// [`gradcheck_with`] in the scratch of three gradients.
fn gradcheck_in<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &mut TapeView<S>,
    x: &[S],
    modes: Tolerance,
    finite: Tolerance,
    [rev, fwd, fd]: [&mut [S]; 3],
) -> Result<GradcheckReport, TapeError> {
    let y_rev = gradient_reverse(f, tape, x, rev)?;
    let y_fwd = gradient_forward(f, x, fwd)?;
    let y_plain = gradient_central(f, x, fd)?;
    let reverse_vs_forward = compare(rev, fwd, modes)?;
    let reverse_vs_central = compare(rev, fd, finite)?;

    let (backward_twice_identical, zero_seed_gives_zero) =
        record(tape, x.len(), 0, x.iter().copied(), |tape, vars| {
            twice_and_zero_seed(f, tape, vars, fwd, fd)
        })?;

    fd.iter_mut().for_each(|v| *v = S::ZERO);
    let (y_dir, d) = directional_derivative(f, x, fd)?;
    let zero_tangent_gives_zero = d.is_zero();

    Ok(GradcheckReport {
        reverse_vs_forward,
        reverse_vs_central,
        backward_twice_identical,
        zero_seed_gives_zero,
        zero_tangent_gives_zero,
        values_agree: identical(y_rev, y_plain)
            && identical(y_fwd, y_plain)
            && identical(y_dir, y_plain),
    })
}

/// Evaluates `f` on the recorded `vars` once, runs backward twice (comparing bit for bit) and
/// once more from `0 · f`.
fn twice_and_zero_seed<S: Scalar, F: Function + ?Sized>(
    f: &F,
    tape: &TapeView<S>,
    vars: &[Var<'_, S>],
    first: &mut [S],
    second: &mut [S],
) -> Result<(bool, bool), TapeError> {
    let y = f.eval(vars);
    write_gradient(tape, y, vars, first)?;
    write_gradient(tape, y, vars, second)?;
    let twice = first
        .iter()
        .zip(second.iter())
        .all(|(a, b)| identical(*a, *b));
    let zero_seeded: Var<'_, S> = y * S::ZERO;
    write_gradient(tape, zero_seeded, vars, first)?;
    let zero = first.iter().all(|g| g.is_zero());
    Ok((twice, zero))
}

/// Equal, or both NaN.
#[allow(clippy::eq_op)]
fn identical<S: Scalar>(a: S, b: S) -> bool {
    a == b || (a != a && b != b)
}
