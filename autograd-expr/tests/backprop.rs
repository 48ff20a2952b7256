//! The hand-written chain rule over an expression against hand-derived values, the seeds'
//! worked examples and the core's reverse mode (the tape), which shares none of its rules.

use autograd_core::{gradient_reverse, Tape};
use autograd_expr::{backprop, parse};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[test]
fn the_go_article_cubic_at_its_five_points() {
    let f = parse("x^3 - 2*x + 1").unwrap();
    for (x, d) in [
        (-2.0, 10.0),
        (-0.5, -1.25),
        (0.0, -2.0),
        (1.0, 1.0),
        (3.0, 25.0),
    ] {
        assert_eq!(backprop(&f, &[x]).input_grads, [d]); // 3x^2 - 2, exact
    }
}

#[test]
fn the_lessons_graphs_node_by_node() {
    // L = x*w + b at x = 1, w = 0.5, b = 0.1 (the Go article): every gradient by hand.
    let f = parse("x*w + b").unwrap();
    let b = backprop(&f, &[1.0, 0.5, 0.1]);
    assert_eq!(b.input_grads, [0.5, 1.0, 1.0]);
    assert!(close(b.values[f.root()], 0.6, 1e-15));
    // y = relu(x1*x2 + 1) at (2, 3): the product node gets dy/da = 1, its partials (3, 2).
    let f = parse("relu(x1*x2 + 1)").unwrap();
    let b = backprop(&f, &[2.0, 3.0]);
    let mul = f
        .ops()
        .iter()
        .position(|o| matches!(o, autograd_expr::Op::Mul(..)))
        .unwrap();
    assert_eq!(
        (b.values[mul], b.grads[mul], b.partials[mul]),
        (6.0, 1.0, [3.0, 2.0])
    );
    // relu(a*b + c) at (2, -3, 10) = 4, grads (-3, 2, 1).
    let f = parse("relu(a*b + c)").unwrap();
    assert_eq!(
        backprop(&f, &[2.0, -3.0, 10.0]).input_grads,
        [-3.0, 2.0, 1.0]
    );
}

#[test]
fn the_neuron_of_the_lesson() {
    let f = parse("tanh(x1*w1 + x2*w2 + b)").unwrap();
    let b = backprop(&f, &[2.0, -3.0, 0.0, 1.0, 6.881_373_587_019_543]);
    assert!(close(b.values[f.root()], 0.5_f64.sqrt(), 1e-12));
    let want = [-1.5, 1.0, 0.5, 0.0, 0.5]; // dx1 = w1 (1 - y^2), dw1 = x1 (1 - y^2), ...
    for (g, w) in b.input_grads.iter().zip(want) {
        assert!(close(*g, w, 1e-12), "{g} vs {w}");
    }
}

#[test]
fn micrograd_readme_example() {
    let f = parse(include_str!("micrograd.txt")).unwrap();
    let b = backprop(&f, &[-4.0, 2.0]);
    // micrograd prints 24.7041, 138.8338, 645.5773 (4 decimals).
    assert!((b.values[f.root()] - 24.7041).abs() < 5e-5);
    assert!((b.input_grads[0] - 138.8338).abs() < 5e-5);
    assert!((b.input_grads[1] - 645.5773).abs() < 5e-5);
}

#[test]
fn agrees_with_the_tape_on_every_operation() {
    let cases: [(&str, &[f64]); 16] = [
        ("x^3 - 2*x + 1", &[0.7]),
        ("sin(x)^2 / x", &[0.5]),
        ("exp(x) * ln(y) - sqrt(x*y)", &[0.3, 2.5]),
        ("tan(x) + cos(x*y) - x/y", &[0.4, -1.3]),
        ("sigmoid(x) * softplus(-y) + tanh(x - y)", &[0.2, 0.9]),
        (
            "relu(x - 1) + abs(y) + leaky_relu(x - y, 0.2)",
            &[0.5, -2.0],
        ),
        ("max(x, y) * min(x, y^2)", &[1.5, -1.1]),
        ("max(x, y)", &[2.0, 2.0]), // a tie: 0.5 each
        ("x^y + 2^x + y^0.5", &[1.7, 0.6]),
        ("x^-2 + x^0 + (x*y)^1.5", &[0.8, 1.9]),
        ("-x^2 * -y", &[3.0, 2.0]),
        ("x*x*x / (x + y)", &[1.1, 0.2]),
        ("pow(x, y) * powi(y, 4) / powf(x, 0.3)", &[2.2, 0.7]),
        ("c = x*y; d = c + x; d *= c; d - y", &[0.9, -0.4]),
        ("(x + y).tanh().exp()", &[0.1, 0.2]),
        (include_str!("micrograd.txt"), &[-4.0, 2.0]),
    ];
    let mut tape = Tape::<f64, 256>::new();
    for (source, x) in cases {
        let f = parse(source).unwrap();
        let mine = backprop(&f, x);
        let mut reverse = vec![0.0; x.len()];
        let y = gradient_reverse(&f, &mut tape, x, &mut reverse).unwrap();
        assert_eq!(mine.values[f.root()], y, "{source}");
        for (a, b) in mine.input_grads.iter().zip(&reverse) {
            assert!(close(*a, *b, 1e-13), "{source}: {a} vs {b}");
        }
    }
}

#[test]
fn operations_the_result_does_not_use_get_no_gradient() {
    let f = parse("c = 5*x; y + 1").unwrap();
    let b = backprop(&f, &[1.0, 2.0]);
    assert_eq!(b.input_grads, [0.0, 1.0]);
}

/// Each kink the result depends on, written out with its convention; none elsewhere.
#[test]
fn kinks_are_named_only_where_an_operation_sits_on_one_that_matters() {
    let named = |src: &str, x: &[f64]| -> Vec<(String, String)> {
        let f = parse(src).unwrap();
        backprop(&f, x)
            .kinks(&f)
            .into_iter()
            .map(|k| (f.op_text(k.op).unwrap(), k.convention))
            .collect()
    };
    let pair = |op: &str, c: &str| (op.to_string(), c.to_string());
    assert_eq!(
        named("abs(x - 1) * 3 + leaky_relu(y, 0.2)", &[1.0, 0.0]),
        [
            pair("abs(x - 1)", "abs'(0) = 0"),
            pair("leaky_relu(y, 0.2)", "leaky_relu'(0) = 0.2 (its slope)")
        ]
    );
    assert_eq!(
        named("min(x, 2*y)", &[2.0, 1.0]),
        [pair("min(x, 2 * y)", "1/2 for each operand of a tie")]
    );
    // Away from the kinks, or where nothing depends on them: none.
    assert!(named("abs(x - 1) * 3 + leaky_relu(y, 0.2)", &[1.5, -1.0]).is_empty());
    assert!(named("min(x, 2*y)", &[2.0, 1.5]).is_empty());
    assert!(named("0 * relu(x) + x", &[0.0]).is_empty());
    // max(x, x) is x on both sides: no kink, whatever the tie.
    assert!(named("max(x, x)", &[0.0]).is_empty());
    // The lesson's neuron, past its kink at (2, 3): relu(7), none.
    assert!(named("relu(x1*x2 + 1)", &[2.0, 3.0]).is_empty());
    assert_eq!(
        named("relu(x1*x2 + 1)", &[-0.5, 2.0]),
        [pair("relu((x1 * x2) + 1)", "relu'(0) = 0")]
    );
}
