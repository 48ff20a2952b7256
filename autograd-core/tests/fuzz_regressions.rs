//! Every failure the fuzz targets (`fuzz/`, `cargo xtask fuzz`) found, as a plain test.
//!
//! Each test names the target that found it and the input it reduced to. The fuzz targets compare
//! the tape, the dual numbers and an independent interpreter on arbitrary programs; these tests pin
//! the specific programs that once disagreed, with the values worked out by hand.

use autograd_core::{Dual, Number, Tape, TapeError, Var};

/// differential: `x.powi(-656932609)` at `x = -0.125` in f32. Exponents too large for a node's
/// 28-bit field are recorded as `powf`; the tape used to compute the value as
/// `x.pow(n as f32)`, and `-656932609 as f32` is the even `-656932608`, so the tape said `+inf`
/// where `f32::powi` and `Dual` say `-inf` (an odd power of a negative number).
#[test]
fn powi_with_a_huge_odd_exponent_keeps_its_sign_on_the_tape() {
    let n = -656_932_609;
    let tape = Tape::<f32, 8>::new();
    let x = tape.var(-0.125);
    let y = x.powi(n);
    assert_eq!(y.value(), f32::NEG_INFINITY);
    assert_eq!(Number::powi(-0.125_f32, n), f32::NEG_INFINITY);
    assert_eq!(Dual::variable(-0.125_f32).powi(n).re, f32::NEG_INFINITY);
    tape.check().unwrap();
}

/// differential: values must be bit-identical in every mode, also for exponents recorded as
/// `powf`. Near 1 a huge power is finite, and `pow` and repeated squaring round differently.
#[test]
fn powi_with_a_huge_exponent_has_the_same_value_in_every_mode() {
    for n in [1_000_000_001, -300_000_007, i32::MAX, i32::MIN] {
        for x in [1.0 + 1e-10, 1.0 - 3e-11, -1.0, 1.0] {
            let plain = Number::powi(x, n);
            let tape = Tape::<f64, 8>::new();
            let y = tape.var(x).powi(n);
            let dual = Dual::variable(x).powi(n);
            assert_eq!(
                y.value().to_bits(),
                plain.to_bits(),
                "tape, x = {x}, n = {n}"
            );
            assert_eq!(dual.re.to_bits(), plain.to_bits(), "dual, x = {x}, n = {n}");
        }
    }
}

/// differential: `Dual::powi(i32::MIN)` computed `x^(n - 1)` with `n - 1` overflowing (a panic
/// in debug builds). d/dx x^n = n x^(n-1): at x = 1 that is n; at x = -1 it is n (-1)^(n-1) = -n.
#[test]
fn powi_of_i32_min_differentiates_without_overflow() {
    let n = i32::MIN;
    for (x, dy) in [(1.0_f64, -2_147_483_648.0), (-1.0, 2_147_483_648.0)] {
        let d = Dual::variable(x).powi(n);
        assert_eq!((d.re, d.eps), (1.0, dy), "dual at {x}");
        let tape = Tape::<f64, 8>::new();
        let xv = tape.var(x);
        let y = xv.powi(n);
        assert_eq!(y.value(), 1.0);
        assert_eq!(tape.backward(y).unwrap().wrt(xv), dy, "tape at {x}");
    }
}

/// differential: `x / c` for a tiny constant `c`. Forward mode computed the derivative with
/// respect to the divisor, `-(x/c)/c`, which overflows, and multiplied it by the divisor's zero
/// tangent: 0 * -inf = NaN. The derivative is 1/c, finite. Found in f64 with
/// `c ≈ 8e-227`; in f32 it already happens at `c = 1e-20`.
#[test]
fn dividing_by_a_tiny_constant_has_a_finite_forward_derivative() {
    let c32 = 1e-20_f32;
    let d = Dual::variable(0.125_f32) / Dual::constant(c32);
    assert_eq!(d.eps, 1.0 / c32);

    let c64 = f64::from_bits(1_224_457_927_952_110_858); // the constant the fuzzer found
    assert!((0.125 / c64 / c64).is_infinite());
    let d = Dual::variable(0.125_f64) / Dual::constant(c64);
    assert_eq!(d.eps, 1.0 / c64);
    // Reverse mode agrees.
    let tape = Tape::<f64, 8>::new();
    let x = tape.var(0.125);
    let y = x / c64;
    assert_eq!(tape.backward(y).unwrap().wrt(x), 1.0 / c64);
}

/// differential: `0 / x` for a subnormal `x` (here about 6.4e-315). The derivative with respect
/// to `x` is `-0/x^2 = 0` (the tape: `-z/y = -0/x`), but forward mode computed it as
/// `-(q * (1/x))` with `1/x = inf`: `-(0 * inf)` = NaN.
#[test]
fn zero_over_a_subnormal_has_a_zero_forward_derivative() {
    let x = f64::from_bits(1_291_793_664);
    assert!(x.is_subnormal() && (1.0 / x).is_infinite());
    let d = Dual::constant(0.0) / Dual::variable(x);
    assert_eq!((d.re, d.eps), (0.0, 0.0));
    let tape = Tape::<f64, 8>::new();
    let xv = tape.var(x);
    let y = 0.0 / xv;
    assert_eq!(tape.backward(y).unwrap().wrt(xv), 0.0);
}

/// Follow-up of the huge-exponent finding: the *derivative* of `x.powi(n)` for `|n| >= 2^27`
/// (recorded as `powf` with `n` rounded to the scalar) must keep the sign of `n x^(n-1)`. At
/// `x = -1` and the even `n = 2^27 + 2`, the derivative is `n (-1)^(n-1) = -n`; but in `f32`
/// every number from 2^24 up is even, so `x.pow(c - 1)` with the rounded `c` gave `+1` and the
/// derivative the wrong sign.
#[test]
fn powi_with_a_huge_exponent_keeps_the_derivatives_sign_in_f32() {
    for n in [(1 << 27) + 2, (1 << 27) + 1, -(1 << 28)] {
        let tape = Tape::<f32, 8>::new();
        let x = tape.var(-1.0);
        let y = x.powi(n);
        let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
        assert_eq!(y.value(), sign, "n = {n}");
        let d = tape.backward(y).unwrap().wrt(x);
        // n (-1)^(n-1) = -n (-1)^n
        assert_eq!(d, -(n as f32) * sign, "n = {n}");
        assert_eq!(d, Dual::variable(-1.0_f32).powi(n).eps, "n = {n}");
    }
}

/// differential, found porting the targets to the statement-level tape (fixed by giving handles
/// their own "is a statement" flag): `Var::id` used to take any handle with one pending pair whose partial is exactly 1 for that
/// statement itself, whatever its value. `x + 1` (`Shift`, partial 1), `x - c`, `tan(x)` where
/// `1 + tan^2 x` rounds to 1 (the fuzzer's case: `tan(710.0)`), ... all claim to be `x`. Then
/// `recorded()` writes nothing and returns a handle whose id names `x`, `TapeView::node` and
/// `TapeView::get` of that id give `x`'s value, and `Gradients::wrt` reads `x`'s adjoint instead
/// of `dy/d(x + 1)` (which the docs say is 0 for a pending handle; after `recorded()` it should
/// be the derivative with respect to the new statement).
#[test]
fn a_pending_handle_with_partial_one_is_not_its_operands_statement() {
    let tape = Tape::<f64, 16>::new();
    let x = tape.var(2.0);
    let y = x + 1.0;
    assert_eq!(y.id(), None, "y = x + 1 lives only in its handle");
    let r = y.recorded().unwrap();
    let id = r.id().unwrap();
    assert_ne!(
        Some(id),
        x.id(),
        "recorded() must write y, not return x's statement"
    );
    assert_eq!(tape.node(id).unwrap().value, 3.0);
    assert_eq!(tape.get(id).unwrap().value(), 3.0);
    // z = y x: dz/dy = x = 2 (dz/dx = y + x = 5).
    let z = r * x;
    assert_eq!(tape.backward(z).unwrap().wrt(r), 2.0);
}

/// capacity, found porting the target (fixed: `try_var` checks the tape first): `try_var` on a
/// tape that already failed but still has room writes its leaf and only then reports the error
/// (it is `var(value).recorded()`), so a call documented to "fail at once" still uses a slot.
#[test]
fn a_failing_try_var_writes_nothing() {
    let tape = Tape::<f64, 5>::new();
    let (a, b, c) = (tape.var(1.0), tape.var(2.0), tape.var(3.0));
    let abc = a * b * c; // three operands and a header: 4 slots, only 2 left
    assert_eq!(abc.value(), 6.0);
    let overflow = TapeError::CapacityExceeded {
        capacity: 5,
        needed: 7,
    };
    assert_eq!(tape.check(), Err(overflow));
    let len = tape.len();
    assert_eq!(tape.try_var(4.0).err(), Some(overflow));
    assert_eq!(tape.len(), len, "a failing try_var must not write a leaf");
}

/// differential: `mul_add` of three `f32::MAX` inputs (inf), then a sum of it with zeros: an
/// n-ary statement folded into a handle kept the infinite value but dropped the mark that the
/// folding had written it as a statement, so NaN provenance could not find it.
#[test]
fn a_folded_n_ary_result_that_is_not_finite_stays_a_statement() {
    let tape = Tape::<f32, 64>::new();
    let m = tape.var(f32::MAX);
    let y = m.mul_add(m, m); // inf
    assert_eq!(y.value(), f32::INFINITY);
    let s = autograd_core::Var::sum(&[y, tape.var(0.0) * 0.0]);
    assert_eq!(s.value(), f32::INFINITY);
    assert!(s.id().is_some(), "a non-finite result is a statement");
    let origin = tape.non_finite_origin(s).expect("the origin is found");
    assert_eq!(origin.op, autograd_core::Op::MulAdd);
}

/// differential (after `max`/`min` ties stopped overflowing in `math`): `max(x, x)` at
/// `x = f64::MAX` on the tape, whose binary rule had its own `(x + y) / 2`, was `inf` where
/// plain `f64` and the reference interpreter gave `f64::MAX`. Both now share one mean.
#[test]
fn a_tie_of_max_at_the_largest_value_stays_finite_on_the_tape() {
    let tape = Tape::<f64, 16>::new();
    let (x, y) = (tape.var(f64::MAX), tape.var(f64::MAX));
    let m = x.max(y);
    assert_eq!(m.value(), f64::MAX);
    assert_eq!(Number::max(f64::MAX, f64::MAX), f64::MAX);
    let g = tape.backward(m).unwrap();
    assert_eq!((g.wrt(x), g.wrt(y)), (0.5, 0.5));
    assert_eq!(
        Dual::new(f64::MAX, 1.0).max(Dual::new(f64::MAX, 0.0)).re,
        f64::MAX
    );
}

/// differential: `atan2(y, x)` at `y = x = f64::MAX`. Both partials are `±1 / (2 MAX)`, a
/// subnormal (2.78e-309), but `hypot(MAX, MAX)` overflows, so `y / r / r` gave 0 in reverse
/// and forward mode. They now take the halves when `r` overflows.
#[test]
fn atan2_at_the_largest_values_keeps_its_subnormal_derivative() {
    let expected = 0.5 / f64::MAX; // 1/(2 MAX): y / (x^2 + y^2) with x = y = MAX
    let tape = Tape::<f64, 16>::new();
    let (y, x) = (tape.var(f64::MAX), tape.var(f64::MAX));
    let g = tape.backward(y.atan2(x)).unwrap();
    assert_eq!((g.wrt(y), g.wrt(x)), (expected, -expected));
    let d = Dual::new(f64::MAX, 1.0).atan2(Dual::new(f64::MAX, 0.0));
    assert_eq!(d.eps, expected);
    let d = Dual::new(f64::MAX, 0.0).atan2(Dual::new(f64::MAX, 1.0));
    assert_eq!(d.eps, -expected);
}

/// differential (found in a 10-minute run at `8558128`, present since the n-ary statements):
/// `x.mul_add(a, b)` with `x` a handle pending on a statement with partial 0 and `a` pending on
/// two, every value 0. In `f64` the three handles held two pairs in all and `mul_add` fell back
/// to `x * a + b`, a value on the tape with zero partials; on a tape of dual numbers `x` held
/// one more pair, so `mul_add` took the n-ary path, whose terms all had partial 0, and returned
/// a constant: `backward` then failed with `NotRecorded` on one tape and not on the other.
#[test]
fn an_n_ary_result_whose_terms_all_have_zero_partials_stays_on_its_tape() -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let (u, v) = (tape.var(0.0), tape.var(0.0));
    let x = u * 0.0; // on the tape, partial 0
    let a = u * 2.0 + v; // two pairs
    let c = Var::constant(0.0);
    for y in [
        x.mul_add(a, c),
        Var::dot(&[x, a, u], &[c, c, c])?,
        Var::sum(&[x * 0.0, u * 0.0, v * 0.0]),
        Var::affine(&[x, a], &[c, c], c)?,
    ] {
        assert!(!y.is_constant(), "{y:?}");
        let g = tape.backward(y)?;
        assert_eq!((g.wrt(u), g.wrt(v)), (0.0, 0.0));
    }
    // Found next by the same target, on the first fix: such a result whose value is not finite
    // must be written as a statement, or NaN provenance cannot name it.
    let y = Var::affine(&[x, a], &[c, c], Var::constant(f64::INFINITY))?;
    assert!(y.id().is_some(), "{y:?}");
    assert_eq!(
        tape.non_finite_origin(y).map(|o| o.op),
        Some(autograd_core::Op::Dot)
    );
    let dual = Tape::<Dual<f64>, 16>::new();
    let (u, v) = (dual.var(Dual::new(0.0, 1.0)), dual.var(Dual::new(0.0, 1.0)));
    let x = u * Dual::constant(0.0);
    let a = u * Dual::constant(2.0) + v;
    let y = x.mul_add(a, Var::constant(Dual::constant(0.0)));
    assert!(!y.is_constant(), "{y:?}");
    assert_eq!(dual.backward(y)?.wrt(u).re, 0.0);
    Ok(())
}

/// differential (found in the same 10-minute run): `max(x, x)` for a subnormal `x` with an odd
/// last bit, on a tape of dual numbers whose tangent was NaN. The tie takes the mean,
/// `(x + x) / 2`, exact, unless the sum is not finite; that test looked at the whole dual
/// number, so the NaN tangent sent the value down `x/2 + x/2`, which rounds the subnormal.
/// Plain dual numbers (the mean of the real parts) kept `x`.
#[test]
fn a_tie_of_max_keeps_a_subnormal_value_whatever_the_tangent() {
    let x = Dual::new(f64::from_bits(19_267_453), f64::NAN); // 9.5e-317, odd last bit
    let tape = Tape::<Dual<f64>, 4>::new();
    let v = tape.var(x);
    for y in [v.max(v), v.min(v)] {
        assert_eq!(y.value().re.to_bits(), x.re.to_bits());
    }
    assert_eq!(x.max(x).re.to_bits(), x.re.to_bits());
}

/// differential (`fuzz/corpus/differential/dual-tape-overflowed-partial`): a stored partial that
/// overflowed (a product of finite local derivatives) reached only by a zero real adjoint. The
/// `f64` sweep skips the zero adjoint; on a tape of dual numbers the adjoint's tangent is not 0,
/// so it is not skipped and `0 * inf` makes the real part NaN (the documented behaviour of
/// `backward`; the harness wrongly expected the real parts to agree).
/// `v = (x * 1e300) * 1e10` at `x = 1e-300`: value 1e10, partial `1e310 = inf`, so `v` is written
/// as a statement. `y = v * w + x` at `w = 0`: `dy/dv = w = 0`, `dy/dx = 1` through the last term.
/// On the dual tape `w` carries the tangent 1, so the adjoint of `v` is `0 + 1ε`.
#[test]
fn an_overflowed_partial_behind_a_zero_adjoint_is_skipped_only_when_every_part_is_zero(
) -> Result<(), TapeError> {
    let tape = Tape::<f64, 16>::new();
    let (x, w) = (tape.var(1e-300), tape.var(0.0));
    let v = x * 1e300 * 1e10;
    let g = tape.backward(v * w + x)?;
    assert_eq!(g.wrt(x), 1.0);
    assert_eq!(g.wrt(w), v.value());

    let tape = Tape::<Dual<f64>, 16>::new();
    let (x, w) = (
        tape.var(Dual::new(1e-300, 0.0)),
        tape.var(Dual::new(0.0, 1.0)),
    );
    let v = x * Dual::from_f64(1e300) * Dual::from_f64(1e10);
    let g = tape.backward(v * w + x)?;
    assert!(g.wrt(x).re.is_nan(), "{:?}", g.wrt(x));
    assert_eq!(g.wrt(w).re, v.value().re);
    Ok(())
}

/// differential (`corpus/differential/powf-negative-base-subnormal-value`): `x.powf(3)` at
/// `x = -5.535347781204416e-108`. Its value, `-1.696e-322`, is subnormal, with a few significant
/// bits; the derivative at a negative base was `c z / x` from that value, 1 % off `3 x^2 =
/// 9.192e-215`. Both the tape and the dual numbers now take `c x^(c-1)` unless `c - 1` rounds.
#[test]
fn powf_at_a_negative_base_with_a_subnormal_value_keeps_its_derivative_exact() {
    let x = -5.535347781204416e-108_f64;
    let expected = 3.0 * (x * x); // 3 x^2, by hand: x^2 = 3.064e-215 is a normal number
    let tape = Tape::<f64, 8>::new();
    let v = tape.var(x);
    let y = v.powf(3.0);
    assert!(
        y.value() != 0.0 && y.value().abs() < f64::MIN_POSITIVE,
        "a subnormal value"
    );
    let g = tape.backward(y).unwrap().wrt(v);
    assert!(
        (g - expected).abs() <= 4.0 * f64::EPSILON * expected,
        "tape {g:e} vs {expected:e}"
    );
    let d = Dual::variable(x).powf(3.0).eps;
    assert!(
        (d - expected).abs() <= 4.0 * f64::EPSILON * expected,
        "dual {d:e} vs {expected:e}"
    );
    // The same rule for `pow` with a recorded exponent.
    let tape = Tape::<f64, 8>::new();
    let (v, c) = (tape.var(x), tape.var(3.0));
    let g = tape.backward(v.pow(c)).unwrap().wrt(v);
    assert!(
        (g - expected).abs() <= 4.0 * f64::EPSILON * expected,
        "pow {g:e} vs {expected:e}"
    );
}

/// The sign at a negative base where `c - 1` rounds: `(-1)^(2^53 + 2)`'s derivative is
/// `c (-1)^(c-1) = -c`, which `x^(c-1)` with `c - 1` rounded to the even `c` would make `+c`.
#[test]
fn powf_at_a_negative_base_with_a_huge_integer_exponent_keeps_its_sign() {
    let c = 9_007_199_254_740_994.0_f64; // 2^53 + 2, even; c - 1 is not representable
    assert_ne!(c - 1.0 + 1.0, c);
    let tape = Tape::<f64, 8>::new();
    let v = tape.var(-1.0);
    let g = tape.backward(v.powf(c)).unwrap().wrt(v);
    assert_eq!(g, -c);
    assert_eq!(Dual::variable(-1.0_f64).powf(c).eps, -c);
}

/// differential (Q16 against f64): `powi(-39937)` of `-65530/65536` was `-38.6277` where `f64`
/// gives `-38.7259`: repeated squaring of the rounded `1 / x` doubled the first rounding's
/// relative error with each of its 15 squarings. Now `e^(n ln |x|)` with the odd power's sign,
/// whose error does not grow with `n`: the fuzz check's tolerance was 0.0102 (16 steps, 2 per
/// squaring of `log2 n` and 2^-12 of the result), here within 4 steps.
/// Input `fuzz/corpus/differential/q16-powi-large-negative-exponent`.
#[test]
fn q16_powi_of_a_large_negative_exponent_near_minus_one_is_within_the_tolerance() {
    use autograd_core::Q16;
    let x = Q16::from_bits(-65530);
    let n = -39937;
    let exact = (-65530.0_f64 / 65536.0).powi(n);
    assert!((exact + 38.7259).abs() < 1e-4, "{exact}");
    let got = Number::powi(x, n).to_f64();
    assert!(
        (got - exact).abs() <= 4.0 / 65536.0,
        "Q16 {got} vs f64 {exact}"
    );
    // The tape's value is the plain one, bit for bit.
    let tape = Tape::<Q16, 8>::new();
    assert_eq!(tape.var(x).powi(n).value().to_f64(), got);
}
