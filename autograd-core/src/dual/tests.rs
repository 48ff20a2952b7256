use super::*;

#[test]
fn arithmetic_rules_of_the_lesson() {
    // (a, a') + (b, b') = (a+b, a'+b'); (a, a')(b, b') = (ab, a'b + ab').
    let a = Dual::new(2.0_f64, 3.0);
    let b = Dual::new(5.0, -1.0);
    let s = a + b;
    let p = a * b;
    assert_eq!((s.re, s.eps), (7.0, 2.0));
    assert_eq!((p.re, p.eps), (10.0, 3.0 * 5.0 - 2.0));
    let q = a / b;
    assert_eq!(q.re, 0.4);
    assert!((q.eps - (3.0 * 5.0 + 2.0) / 25.0).abs() < 1e-15);
}

#[test]
fn display_parenthesises_nested_duals() {
    let d = Dual::new(Dual::new(1.0_f64, 2.0), Dual::new(3.0, 4.0));
    let mut s = heapless::String::<64>::new();
    core::fmt::write(&mut s, format_args!("{d}")).unwrap();
    assert_eq!(s.as_str(), "(1 + 2ε) + (3 + 4ε)ε");
    s.clear();
    core::fmt::write(&mut s, format_args!("{}", Dual::new(0.5_f32, -1.0))).unwrap();
    assert_eq!(s.as_str(), "0.5 + -1ε");
}

#[test]
fn comparisons_look_at_the_real_part_only() {
    let a = Dual::new(1.0_f64, 5.0);
    let b = Dual::new(1.0, -5.0);
    assert!(a == b);
    assert!(!a.is_zero());
    assert!(Dual::<f64>::ZERO.is_zero());
    assert!(Dual::new(0.5_f32, 9.0) < Dual::new(0.75, 0.0));
}

#[test]
fn zero_tangent_survives_infinite_derivative() {
    let z = Dual::constant(0.0_f64);
    assert_eq!(z.sqrt().eps, 0.0);
    assert_eq!(z.ln().eps, 0.0);
    assert_eq!(z.powf(0.5).eps, 0.0);
    // x^y in y for x < 0 with a constant exponent: no NaN.
    let p = Dual::variable(-2.0_f64).pow(Dual::constant(2.0));
    assert_eq!((p.re, p.eps), (4.0, -4.0));
    // But a live tangent through sqrt(0) is infinite, as the derivative is.
    assert_eq!(Dual::variable(0.0_f64).sqrt().eps, f64::INFINITY);
}
