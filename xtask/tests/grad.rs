//! `cargo xtask grad` through its command line, on the seeds' worked examples: every figure is
//! checked against a value derived by hand or printed by the lesson, never against the engine.

use std::process::Command;

use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn xtask(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("grad")
        .args(args)
        .output()
        .expect("the xtask binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The points of a `--json` run.
fn points(args: &[&str]) -> Vec<Value> {
    let mut all = args.to_vec();
    all.push("--json");
    let run = xtask(&all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("valid JSON");
    v["points"].as_array().unwrap().clone()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn the_go_articles_table_for_the_cubic() {
    // f(x) = x^3 - 2x + 1, f'(x) = 3x^2 - 2 at the article's five points.
    let p = points(&["x^3 - 2*x + 1", "--at", "x=-2,-0.5,0,1,3"]);
    let want = [
        (-2.0, -3.0, 10.0),
        (-0.5, 1.875, -1.25),
        (0.0, 1.0, -2.0),
        (1.0, 0.0, 1.0),
        (3.0, 22.0, 25.0),
    ];
    assert_eq!(p.len(), 5);
    for (point, (x, f, d)) in p.iter().zip(want) {
        assert_eq!(numbers(&point["x"]), [x]);
        assert_eq!(point["value"].as_f64(), Some(f));
        assert_eq!(numbers(&point["reverse"]), [d]); // exact: powi and products
        assert_eq!(numbers(&point["forward"]), [d]);
        // The article's tolerance for its finite differences.
        assert!(close(numbers(&point["central"])[0], d, 1e-4));
    }
    // The text table: one row per point, like the article's.
    let run = xtask(&["x^3 - 2*x + 1", "--at", "x=-2,-0.5,0,1,3"]);
    assert_eq!(run.code, 0);
    let row = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("-0.5"))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[..4], ["-0.5", "1.875", "-1.25", "-1.25"]);
}

#[test]
fn the_lessons_neuron() {
    let p = points(&[
        "tanh(w1*x1 + w2*x2 + b)",
        "--at",
        "x1=2,x2=0,w1=-3,w2=1,b=6.8813735870195432",
    ]);
    // Inputs in the order of --at: x1, x2, w1, w2, b.
    let (y, g) = (p[0]["value"].as_f64().unwrap(), numbers(&p[0]["reverse"]));
    assert_eq!(format!("{y:.4}"), "0.7071"); // as the lesson prints it
    assert!(close(y, std::f64::consts::FRAC_1_SQRT_2, 1e-15)); // tanh(atanh(1/sqrt 2))
    for (got, want) in g.iter().zip([-1.5, 0.5, 1.0, 0.0, 0.5]) {
        assert!(close(*got, want, 1e-12), "{g:?}");
    }
    assert_eq!(g, numbers(&p[0]["forward"]));
}

#[test]
fn micrograd_readme_example() {
    let source = include_str!("../../autograd-expr/tests/micrograd.txt");
    let p = points(&[source, "--at", "a=-4,b=2"]);
    // micrograd prints g = 24.7041, dg/da = 138.8338, dg/db = 645.5773.
    assert!(close(p[0]["value"].as_f64().unwrap(), 24.7041, 5e-5));
    let g = numbers(&p[0]["reverse"]);
    assert!(
        close(g[0], 138.8338, 5e-5) && close(g[1], 645.5773, 5e-5),
        "{g:?}"
    );
}

#[test]
fn the_portuguese_lessons_worked_examples() {
    let grad = |expr: &str, at: &str| numbers(&points(&[expr, "--at", at])[0]["reverse"]);
    assert_eq!(grad("relu(x1*x2 + 1)", "x1=2,x2=3"), [3.0, 2.0]); // (x2, x1)
    assert_eq!(grad("relu(a*b + c)", "a=2,b=-3,c=10"), [-3.0, 2.0, 1.0]);
    assert_eq!(grad("x ** 3", "x=2"), [12.0]); // exercise 1
    assert_eq!(grad("x**2 + 3*x + 1", "x=2"), [7.0]); // the PyTorch example
    assert_eq!(grad("tanh(x)", "x=0"), [1.0]); // exercise 2
    assert!(close(grad("tanh(x)", "x=2")[0], 0.0707, 1e-4));
    assert!(close(grad("sin(x^2)", "x=2")[0], -2.615, 5e-4)); // cos(4) * 4
    assert_eq!(grad("x*w + b", "x=1,w=0.5,b=0.1"), [0.5, 1.0, 1.0]); // the Go article's L
}

#[test]
fn hessian_two_ways_matches_the_hand_derived_second_derivative() {
    // f = sin^2(x)/x: f'' = 2cos(2x)/x - 2sin(2x)/x^2 + 2sin^2(x)/x^3.
    let x: f64 = 0.5;
    let want = 2.0 * (2.0 * x).cos() / x - 2.0 * (2.0 * x).sin() / (x * x)
        + 2.0 * x.sin().powi(2) / x.powi(3);
    let p = points(&["sin(x)^2 / x", "--at", "x=0.5", "--hessian"]);
    let h = &p[0]["hessian"];
    let fr = h["forward_over_reverse"][0][0].as_f64().unwrap();
    let ff = h["forward_over_forward"][0][0].as_f64().unwrap();
    assert!(
        close(fr, want, 1e-13) && close(ff, want, 1e-13),
        "{fr} {ff} {want}"
    );
    // Two inputs: f = x^2 y, H = [[2y, 2x], [2x, 0]].
    let p = points(&["x^2*y", "--at", "x=3,y=5", "--hessian"]);
    let rows = p[0]["hessian"]["forward_over_reverse"]
        .as_array()
        .unwrap()
        .clone();
    let h: Vec<Vec<f64>> = rows.iter().map(numbers).collect();
    assert_eq!(h, [[10.0, 6.0], [6.0, 0.0]]);
}

#[test]
fn f32_shows_what_firmware_computes() {
    let p = points(&["tanh(x)", "--at", "x=2", "--f32"]);
    let g32 = numbers(&p[0]["f32"]["reverse"])[0];
    let g64 = numbers(&p[0]["reverse"])[0];
    assert_ne!(g32, g64);
    assert!(close(g32, g64, 1e-6)); // single precision: ~7 digits
    assert_eq!(g32, g32 as f32 as f64); // an f32 value
                                        // Central differences in f32 (step ~4.9e-3): tanh''(2) h^2 / 6 plus round-off, ~1e-5.
    let c32 = numbers(&p[0]["f32"]["central"])[0];
    assert!(
        close(c32, g64, 1e-4) && !close(c32, g64, 1e-7),
        "{c32} vs {g64}"
    );
}

#[test]
fn graph_and_steps_files() {
    let dir = std::env::temp_dir().join(format!("xtask-grad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, dot, steps) = (dir.join("g.svg"), dir.join("g.dot"), dir.join("s.svg"));
    for path in [&svg, &dot] {
        let run = xtask(&[
            "relu(x1*x2 + 1)",
            "--at",
            "x1=2,x2=3",
            "--graph",
            path.to_str().unwrap(),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let dot = std::fs::read_to_string(dot).unwrap();
    assert!(dot.contains("{ * | data 6 | grad 1 }"), "{dot}");
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains(">grad 3</text>"));

    let run = xtask(&[
        "sin(x)^2 / x",
        "--at",
        "x=0.5",
        "--steps",
        steps.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("best h"), "{}", run.stdout);
    let plot = std::fs::read_to_string(&steps).unwrap();
    assert!(plot.contains("default h 6.1e-6"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_exits_2_with_a_caret_never_a_panic() {
    let cases: [(&[&str], &str); 9] = [
        (&["e^x", "--at", "x=1"], "write exp(x) instead of e^x"),
        (&["x^3 - * 2", "--at", "x=1"], "  x^3 - * 2\n        ^"),
        (&["tanh(x", "--at", "x=1"], "is not closed"),
        (&["x*y", "--at", "x=1"], "no value for `y`"),
        (&["x"], "no point given"),
        (&["x", "--at", "x=1", "--bogus"], "unknown option `--bogus`"),
        (&["x", "--at", "x=one"], "not a number"),
        (
            &["x", "--at", "x=1", "--graph", "g.png"],
            "must end in .svg or .dot",
        ),
        (&["2x", "--at", "x=1"], "write `2*x`"),
    ];
    for (args, says) in cases {
        let run = xtask(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{args:?}");
    }
    // A constant needs no --at.
    let run = xtask(&["2^10 - 24"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("value = 1000"), "{}", run.stdout);
    let help = xtask(&["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--steps FILE"));
}

#[test]
fn a_reader_that_stops_early_ends_the_output_not_the_run() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // 3,000 points: far more text than a pipe holds, so the calculator is still writing when
    // the reader goes (as `| head -1` does).
    let xs: Vec<String> = (1..=3000)
        .map(|i| format!("{}", i as f64 / 1000.0))
        .collect();
    let at = format!("x={}", xs.join(","));
    let dir = std::env::temp_dir().join(format!("xtask-grad-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.dot");
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["grad", "sin(x)", "--at", &at, "--graph"])
        .arg(&graph)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the xtask binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // (The reader is dropped here: the pipe's read end closes.)
    assert_eq!(first, "expression: sin(x)\n");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The run went on to its end: the graph is written.
    let dot = std::fs::read_to_string(&graph).unwrap();
    assert!(dot.starts_with("digraph"), "{dot}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_kink_is_explained_where_central_differences_see_its_two_sides() {
    // relu at 0: the modes take 0, central differences the mean of 0 and 1.
    let run = xtask(&["relu(x)", "--at", "x=0,1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "note: at x = 0, relu(x) is at a kink: both modes use relu'(0) = 0 there \
             (PyTorch's convention); central differences see the mean of the two one-sided \
             slopes.\n"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("at x = 1,"), "{}", run.stdout);
    let p = points(&["relu(x)", "--at", "x=0,1"]);
    assert_eq!(numbers(&p[0]["central"]), [0.5]);
    assert_eq!(p[0]["kinks"][0]["operation"], "relu(x)");
    assert_eq!(p[0]["kinks"][0]["convention"], "relu'(0) = 0");
    assert!(p[1].get("kinks").is_none());
}
