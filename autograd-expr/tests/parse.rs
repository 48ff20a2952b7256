//! The notation: precedence, associativity, the power rule, statements, and the errors.

use autograd_expr::{parse, Func, Op, MAX_DEPTH};

fn at(source: &str, x: &[f64]) -> f64 {
    parse(source).unwrap().eval(x)
}

#[test]
fn precedence_and_associativity_follow_math_and_python() {
    assert_eq!(parse("-x^2").unwrap().read_as(), "-(x^2)");
    assert_eq!(at("-x^2", &[3.0]), -9.0);
    assert_eq!(at("-x**2", &[3.0]), -9.0);
    assert_eq!(at("2^3^2", &[]), 512.0); // 2^(3^2), not (2^3)^2 = 64
    assert_eq!(at("2**3**2", &[]), 512.0);
    assert_eq!(at("2^-1", &[]), 0.5);
    assert_eq!(at("8 - 3 - 2", &[]), 3.0); // left-associative
    assert_eq!(at("8 / 4 / 2", &[]), 1.0);
    assert_eq!(at("1 + 2 * 3", &[]), 7.0);
    assert_eq!(at("(1 + 2) * 3", &[]), 9.0);
    assert_eq!(at("--x", &[2.0]), 2.0);
    assert_eq!(at("+x", &[2.0]), 2.0);
    assert_eq!(at("2*-x", &[2.0]), -4.0);
    assert_eq!(at("1.5e-3 * 2E+3", &[]), 3.0);
    assert_eq!(at(".5 + 1.", &[]), 1.5);
    assert_eq!(at("x − 1", &[3.0]), 2.0); // a copied Unicode minus
    assert_eq!(parse("a*b + c*d").unwrap().read_as(), "(a * b) + (c * d)");
}

#[test]
fn the_power_rule_picks_powi_powf_or_pow() {
    let last = |s: &str| {
        let e = parse(s).unwrap();
        e.ops()[e.root()].clone()
    };
    assert!(matches!(last("x^3"), Op::Powi(_, 3)));
    assert!(matches!(last("x^-2"), Op::Powi(_, -2)));
    assert!(matches!(last("x^(6/3)"), Op::Powi(_, 2))); // a constant exponent is computed
    assert!(matches!(last("x^2.0"), Op::Powi(_, 2)));
    assert!(matches!(last("x**0.5"), Op::Powf(_, c) if c == 0.5));
    assert!(matches!(last("x^y"), Op::Pow(..)));
    assert!(matches!(last("2^x"), Op::Pow(..)));
    assert!(matches!(last("pow(x, 3)"), Op::Powi(_, 3)));
    assert!(matches!(last("powf(x, 3)"), Op::Powf(_, c) if c == 3.0));
    assert!(matches!(last("x.pow(2)"), Op::Powi(_, 2)));
    // The exponent's own operations are dropped once it is a number.
    assert_eq!(parse("x^(1/2)").unwrap().ops().len(), 2);
    // powi keeps negative bases real; powf cannot.
    assert_eq!(at("x^3", &[-2.0]), -8.0);
    assert!(at("x^0.5", &[-4.0]).is_nan());
}

#[test]
fn every_function_of_the_core_by_name() {
    let x = 0.7_f64;
    let cases: [(&str, f64); 16] = [
        ("exp(x)", x.exp()),
        ("ln(x)", x.ln()),
        ("log(x)", x.ln()),
        ("sqrt(x)", x.sqrt()),
        ("sin(x)", x.sin()),
        ("cos(x)", x.cos()),
        ("tan(x)", x.tan()),
        ("tanh(x)", x.tanh()),
        ("sigmoid(x)", 1.0 / (1.0 + (-x).exp())),
        ("relu(-x)", 0.0),
        ("abs(-x)", x),
        ("softplus(x)", (1.0 + x.exp()).ln()),
        ("leaky_relu(-x, 0.1)", -0.1 * x),
        ("leaky_relu(-x)", -0.01 * x),
        ("max(x, 1) + min(x, 1)", 1.0 + x),
        ("square(x) + powi(x, 3)", x * x + x * x * x),
    ];
    for (s, want) in cases {
        assert!((at(s, &[x]) - want).abs() < 1e-15, "{s}");
    }
    for (name, f) in Func::ALL {
        assert_eq!(f.name(), name);
    }
    // Python's prefixes and micrograd's methods.
    assert!((at("math.exp(x) - np.tanh(x)", &[x]) - (x.exp() - x.tanh())).abs() < 1e-15);
    assert_eq!(at("(x*2 - 3).relu()", &[2.0]), 1.0);
    assert!((at("x.tanh().exp()", &[x]) - x.tanh().exp()).abs() < 1e-15);
    assert_eq!(at("2*pi", &[]), 2.0 * std::f64::consts::PI);
}

#[test]
fn inputs_are_named_in_order_of_first_use_and_can_be_reordered() {
    let e = parse("tanh(w1*x1 + w2*x2 + b)").unwrap();
    assert_eq!(e.inputs(), ["w1", "x1", "w2", "x2", "b"]);
    let r = e.with_input_order(&["x1", "x2", "w1", "w2", "b"]).unwrap();
    assert_eq!(
        r.eval(&[2.0, 0.0, -3.0, 1.0, 6.0]),
        e.eval(&[-3.0, 2.0, 1.0, 0.0, 6.0])
    );
    assert_eq!(
        e.with_input_order(&["x1", "x2"]).unwrap_err(),
        "no value for `w1`"
    );
    // A variable used twice is one input (one leaf, as in the lessons' graphs).
    let sq = parse("x*x").unwrap();
    assert_eq!(sq.inputs().len(), 1);
    assert_eq!(sq.ops().len(), 2);
}

/// micrograd's README example, statement for statement: g = 24.7041 at a = -4, b = 2.
const MICROGRAD: &str = include_str!("micrograd.txt");

#[test]
fn statements_bind_names_like_python() {
    let e = parse(MICROGRAD).unwrap();
    assert_eq!(e.inputs(), ["a", "b"]);
    assert!((e.eval(&[-4.0_f64, 2.0]) - 24.7041).abs() < 5e-5);
    assert_eq!(e.name(e.root()), Some("g"));
    assert_eq!(at("c = x + 1; c *= c; c", &[2.0]), 9.0);
    assert_eq!(at("n = 3; x^n", &[2.0]), 8.0);
}

fn error(source: &str) -> (usize, String) {
    let e = parse(source).unwrap_err();
    (e.start + 1, e.message)
}

#[test]
fn errors_point_at_the_column_and_say_what_was_expected() {
    assert_eq!(
        error("x^3 - * 2"),
        (7, "expected a number, a name or `(`, found `*`".into())
    );
    let (col, msg) = error("tanh(w1*x1 + b");
    assert_eq!(col, 15);
    assert!(msg.starts_with("expected an operator, `,` or `)`, found the end of the input"));
    assert!(msg.contains("column 5 is not closed"), "{msg}");
    let (col, msg) = error("2x + 1");
    assert_eq!(col, 2);
    assert!(msg.contains("write `2*x`"), "{msg}");
    assert_eq!(error("x + 1)").0, 6);
    let (col, msg) = error("(x + 1");
    assert_eq!(col, 7);
    assert!(msg.contains("column 1 is not closed"), "{msg}");
    assert_eq!(
        error("foo(x)").1.split(';').next().unwrap(),
        "unknown function `foo`"
    );
    assert_eq!(
        error("tanh(x, 2)"),
        (1, "`tanh` takes 1 argument, got 2".into())
    );
    assert_eq!(error("max(x)").1, "`max` takes 2 arguments, got 1");
    assert!(error("powi(x, 0.5)")
        .1
        .contains("must be an integer number"));
    assert_eq!(
        error("powi(x, -3e9)"),
        (
            1,
            "the exponent of `powi` is an `i32`: at most 2147483647 in magnitude, got -3e9 \
             (`powf(x, -3e9)` or `x^-3e9` take any)"
                .into()
        )
    );
    assert!(parse("powi(x, 2147483647)").is_ok() && parse("powi(x, 2147483648)").is_err());
    assert!(error("powi(x, y)")
        .1
        .contains("does not depend on the inputs"));
    assert_eq!(error("exp + 1").1, "`exp` is a function: write `exp(...)`");
    assert_eq!(error("x + $").0, 5);
    assert_eq!(error("c += 1").1, "`c += ...` needs a value for `c` first");
    assert!(error("x + 1; y").1.starts_with("only the last statement"));
    assert!(error("   ").1.contains("found nothing"));
    assert!(error("x.data").1.contains("method call"));
    assert!(error("1e400").1.contains("too large"));
}

#[test]
fn errors_render_with_a_caret_under_the_culprit() {
    let src = "sin(x)^2 / ";
    assert_eq!(
        parse(src).unwrap_err().render(src),
        "column 12: expected a number, a name or `(`, found the end of the input\n  \
         sin(x)^2 / \n             ^"
    );
    let src = "c = a +\nd = 2";
    let rendered = parse(src).unwrap_err().render(src);
    assert!(
        rendered.starts_with("line 1, column 8: expected a number"),
        "{rendered}"
    );
}

#[test]
fn nesting_is_bounded_so_the_stack_is_safe() {
    let deep = format!(
        "{}x{}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert!(error(&deep).1.contains("nested too deeply"));
    let ok = format!(
        "{}x{}",
        "(".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    );
    assert_eq!(at(&ok, &[1.5]), 1.5);
    // A long sum is a loop, not nesting.
    let long = vec!["x"; 2000].join(" + ");
    assert_eq!(at(&long, &[1.0]), 2000.0);
    assert!(error(&vec!["x"; 5000].join("+")).1.contains("too long"));
}
