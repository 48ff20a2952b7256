//! Expression trees over every operation: generated from a seed, evaluated generically (so the
//! same tree runs as plain f64, on the tape and on dual numbers), printed for reproduction.

use std::fmt;

pub use autograd_core::testkit::{Binary, Unary};
use autograd_core::{Function, Number};

/// Which operations a generator draws from. The testkit appends new operations to `Unary` and
/// `Binary`; a draw over a longer list would turn every seed's expression into another one, so
/// the seeds of the suites keep [`Vocabulary::Original`] and the newer operations are drawn in
/// cases of their own ([`Vocabulary::All`], from another stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// The first 12 one-argument operations (all but `Square`, which has its own node,
    /// [`Expr::Square`]) and the first 7 two-argument ones.
    Original,
    /// Every operation of the testkit but `Square`: also atan, asin, acos, sinh, cosh, log2,
    /// log10, exp2, cbrt, atan2 and hypot.
    All,
}

impl Vocabulary {
    fn unary(self) -> &'static [Unary] {
        match self {
            Vocabulary::Original => Unary::ALL.split_at(12).0,
            Vocabulary::All => &ALL_BUT_SQUARE,
        }
    }
    fn binary(self) -> &'static [Binary] {
        match self {
            Vocabulary::Original => Binary::ALL.split_at(7).0,
            Vocabulary::All => &Binary::ALL,
        }
    }
}

const ALL_BUT_SQUARE: [Unary; Unary::ALL.len() - 1] = {
    let mut out = [Unary::Neg; Unary::ALL.len() - 1];
    let (mut i, mut j) = (0, 0);
    while i < Unary::ALL.len() {
        if !matches!(Unary::ALL[i], Unary::Square) {
            out[j] = Unary::ALL[i];
            j += 1;
        }
        i += 1;
    }
    out
};

/// An expression over inputs `x0, x1, ...`.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Input(usize),
    Const(f64),
    Unary(Unary, Box<Expr>),
    Binary(Binary, Box<Expr>, Box<Expr>),
    Powi(Box<Expr>, i32),
    Powf(Box<Expr>, f64),
    LeakyRelu(Box<Expr>, f64),
    /// Sum of several terms (`Number::sum`: one n-ary statement on a tape).
    Sum(Vec<Expr>),
    /// `a * c` for a constant `c` (`Number::mul_f64`).
    Scale(Box<Expr>, f64),
    /// `a + c` for a constant `c` (`Number::add_f64`).
    Shift(Box<Expr>, f64),
    /// `c - a` for a constant `c` (`Number::rsub_f64`).
    Rsub(Box<Expr>, f64),
    /// `a^2` (`Number::square`).
    Square(Box<Expr>),
    /// `sum_i a_i b_i` (`Number::dot`: one statement).
    Dot(Vec<Expr>, Vec<Expr>),
    /// `a * b + c` (`Number::mul_add`).
    MulAdd(Box<Expr>, Box<Expr>, Box<Expr>),
}

impl Expr {
    pub fn x(i: usize) -> Expr {
        Expr::Input(i)
    }
    pub fn un(op: Unary, a: Expr) -> Expr {
        Expr::Unary(op, Box::new(a))
    }
    pub fn bin(op: Binary, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }

    /// Evaluates the tree with any `Number`: plain, on a tape, or on dual numbers.
    pub fn eval<T: Number>(&self, x: &[T]) -> T {
        match self {
            Expr::Input(i) => x[*i],
            Expr::Const(c) => T::from_f64(*c),
            Expr::Unary(op, a) => op.apply(a.eval(x)),
            Expr::Binary(op, a, b) => op.apply(a.eval(x), b.eval(x)),
            Expr::Powi(a, n) => a.eval(x).powi(*n),
            Expr::Powf(a, c) => a.eval(x).powf(*c),
            Expr::LeakyRelu(a, s) => a.eval(x).leaky_relu(*s),
            Expr::Sum(terms) => {
                let values: Vec<T> = terms.iter().map(|t| t.eval(x)).collect();
                <T as Number>::sum(&values)
            }
            Expr::Scale(a, c) => a.eval(x).mul_f64(*c),
            Expr::Shift(a, c) => a.eval(x).add_f64(*c),
            Expr::Rsub(a, c) => a.eval(x).rsub_f64(*c),
            Expr::Square(a) => a.eval(x).square(),
            Expr::Dot(a, b) => {
                let a: Vec<T> = a.iter().map(|t| t.eval(x)).collect();
                let b: Vec<T> = b.iter().map(|t| t.eval(x)).collect();
                T::dot(&a, &b)
            }
            Expr::MulAdd(a, b, c) => a.eval(x).mul_add(b.eval(x), c.eval(x)),
        }
    }

    /// Distance (in f64, at `x`) from the nearest non-differentiable point any sub-expression
    /// sits at: the argument of relu/abs/leaky_relu to 0, the two arguments of max/min to each
    /// other. `f64::INFINITY` if the expression has no kink; NaN if any intermediate value is not
    /// finite.
    pub fn kink_distance(&self, x: &[f64]) -> f64 {
        let mut nearest = f64::INFINITY;
        self.visit_kinks(x, &mut nearest);
        nearest
    }

    fn visit_kinks(&self, x: &[f64], nearest: &mut f64) -> f64 {
        let v = self.visit_kinks_inner(x, nearest);
        if !v.is_finite() {
            *nearest = f64::NAN;
        }
        v
    }

    fn visit_kinks_inner(&self, x: &[f64], nearest: &mut f64) -> f64 {
        match self {
            Expr::Input(i) => x[*i],
            Expr::Const(c) => *c,
            Expr::Unary(op, a) => {
                let v = a.visit_kinks(x, nearest);
                // relu and abs have kinks at 0, cbrt an infinite derivative there.
                if matches!(op, Unary::Relu | Unary::Abs | Unary::Cbrt) {
                    *nearest = min_nan(*nearest, v.abs());
                }
                op.apply(v)
            }
            Expr::Binary(op, a, b) => {
                let (u, v) = (a.visit_kinks(x, nearest), b.visit_kinks(x, nearest));
                match op {
                    Binary::Max | Binary::Min => *nearest = min_nan(*nearest, (u - v).abs()),
                    // hypot's cone tip at the origin; atan2(u, v) also jumps by 2π across the
                    // cut {u = 0, v < 0}.
                    Binary::Hypot => *nearest = min_nan(*nearest, u.hypot(v)),
                    Binary::Atan2 if v < 0.0 => *nearest = min_nan(*nearest, u.abs()),
                    Binary::Atan2 => *nearest = min_nan(*nearest, u.hypot(v)),
                    _ => {}
                }
                op.apply(u, v)
            }
            Expr::Powi(a, n) => a.visit_kinks(x, nearest).powi(*n),
            Expr::Powf(a, c) => Number::powf(a.visit_kinks(x, nearest), *c),
            Expr::LeakyRelu(a, s) => {
                let v = a.visit_kinks(x, nearest);
                *nearest = min_nan(*nearest, v.abs());
                v.leaky_relu(*s)
            }
            Expr::Sum(terms) => terms.iter().map(|t| t.visit_kinks(x, nearest)).sum(),
            Expr::Scale(a, c) => a.visit_kinks(x, nearest) * c,
            Expr::Shift(a, c) => a.visit_kinks(x, nearest) + c,
            Expr::Rsub(a, c) => c - a.visit_kinks(x, nearest),
            Expr::Square(a) => {
                let v = a.visit_kinks(x, nearest);
                v * v
            }
            Expr::Dot(a, b) => {
                let a: Vec<f64> = a.iter().map(|t| t.visit_kinks(x, nearest)).collect();
                let b: Vec<f64> = b.iter().map(|t| t.visit_kinks(x, nearest)).collect();
                a.iter().zip(&b).map(|(u, v)| u * v).sum()
            }
            Expr::MulAdd(a, b, c) => {
                let (u, v, w) = (
                    a.visit_kinks(x, nearest),
                    b.visit_kinks(x, nearest),
                    c.visit_kinks(x, nearest),
                );
                u * v + w
            }
        }
    }

    /// Every operation the tree uses, for coverage accounting.
    pub fn size(&self) -> usize {
        match self {
            Expr::Input(_) | Expr::Const(_) => 1,
            Expr::Unary(_, a)
            | Expr::Powi(a, _)
            | Expr::Powf(a, _)
            | Expr::LeakyRelu(a, _)
            | Expr::Scale(a, _)
            | Expr::Shift(a, _)
            | Expr::Rsub(a, _)
            | Expr::Square(a) => 1 + a.size(),
            Expr::Dot(a, b) => 1 + a.iter().chain(b).map(Expr::size).sum::<usize>(),
            Expr::MulAdd(a, b, c) => 1 + a.size() + b.size() + c.size(),
            Expr::Binary(_, a, b) => 1 + a.size() + b.size(),
            Expr::Sum(t) => 1 + t.iter().map(Expr::size).sum::<usize>(),
        }
    }
}

/// An expression as a [`Function`].
pub struct ExprFn(pub Expr);

impl Function for ExprFn {
    fn eval<T: Number>(&self, x: &[T]) -> T {
        self.0.eval(x)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Input(i) => write!(f, "x{i}"),
            Expr::Const(c) => write!(f, "{c}"),
            Expr::Unary(Unary::Neg, a) => write!(f, "-({a})"),
            Expr::Unary(op, a) => write!(f, "{}({a})", op.name()),
            Expr::Binary(
                op @ (Binary::Pow | Binary::Max | Binary::Min | Binary::Atan2 | Binary::Hypot),
                a,
                b,
            ) => {
                write!(f, "{}({a}, {b})", op.name())
            }
            Expr::Binary(op, a, b) => write!(f, "({a} {} {b})", op.name()),
            Expr::Powi(a, n) => write!(f, "powi({a}, {n})"),
            Expr::Powf(a, c) => write!(f, "powf({a}, {c})"),
            Expr::LeakyRelu(a, s) => write!(f, "leaky_relu({a}, {s})"),
            Expr::Scale(a, c) => write!(f, "({a} * {c})"),
            Expr::Shift(a, c) => write!(f, "({a} + {c})"),
            Expr::Rsub(a, c) => write!(f, "({c} - {a})"),
            Expr::Square(a) => write!(f, "square({a})"),
            Expr::Dot(a, b) => {
                f.write_str("dot(")?;
                for (i, (u, v)) in a.iter().zip(b).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{u} {v}")?;
                }
                f.write_str(")")
            }
            Expr::MulAdd(a, b, c) => write!(f, "mul_add({a}, {b}, {c})"),
            Expr::Sum(t) => {
                f.write_str("sum(")?;
                for (i, e) in t.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// `min` that keeps a NaN (the "non-finite seen" marker).
fn min_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        a
    } else {
        a.min(b)
    }
}

/// SplitMix64: a small, well-known, seedable generator (Steele, Lea, Flood 2014).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Generates a random tree over `inputs` inputs with depth at most `depth`. Domain-restricted
/// operations get arguments that keep them mostly in their domain (`ln(softplus(e) + 0.1)`,
/// `tan(tanh(e))`, `pow(softplus(e) + 0.1, e)`), and `exp` gets a `tanh`-bounded argument, so
/// most cases are informative; whatever still leaves the domain is counted as skipped.
///
/// With [`Vocabulary::All`], `log2`/`log10` get a positive argument like `ln`, `exp2`, `sinh`
/// and `cosh` a `tanh`-bounded one like `exp`, `asin`/`acos` `0.99 tanh(e)`; `cbrt` (infinite
/// derivative at 0), `atan2` (the origin and the cut along the negative x axis) and `hypot` (the
/// origin) take any argument, their singular points counted as kinks.
pub fn random_expr(rng: &mut Rng, vocabulary: Vocabulary, inputs: usize, depth: usize) -> Expr {
    if depth == 0 || rng.unit() < 0.15 {
        return if rng.unit() < 0.8 {
            Expr::Input(rng.below(inputs))
        } else {
            Expr::Const((rng.uniform(-3.0, 3.0) * 4.0).round() / 4.0)
        };
    }
    let sub = |rng: &mut Rng| random_expr(rng, vocabulary, inputs, depth - 1);
    let positive = |e: Expr| Expr::bin(Binary::Add, Expr::un(Unary::Softplus, e), Expr::Const(0.1));
    match rng.below(18) {
        0..=5 => {
            let drawn = vocabulary.unary();
            let op = drawn[rng.below(drawn.len())];
            let a = sub(rng);
            match op {
                Unary::Ln | Unary::Sqrt | Unary::Log2 | Unary::Log10 => Expr::un(op, positive(a)),
                Unary::Tan | Unary::Exp | Unary::Exp2 | Unary::Sinh | Unary::Cosh => {
                    Expr::un(op, Expr::un(Unary::Tanh, a))
                }
                Unary::Asin | Unary::Acos => {
                    Expr::un(op, Expr::Scale(Box::new(Expr::un(Unary::Tanh, a)), 0.99))
                }
                _ => Expr::un(op, a),
            }
        }
        6..=12 => {
            let drawn = vocabulary.binary();
            let op = drawn[rng.below(drawn.len())];
            let (a, b) = (sub(rng), sub(rng));
            match op {
                Binary::Pow => Expr::bin(op, positive(a), Expr::un(Unary::Tanh, b)),
                Binary::Div => Expr::bin(
                    op,
                    a,
                    Expr::bin(Binary::Add, Expr::Powi(Box::new(b), 2), Expr::Const(0.5)),
                ),
                _ => Expr::bin(op, a, b),
            }
        }
        13 => Expr::Powi(Box::new(sub(rng)), rng.below(7) as i32 - 3),
        14 => Expr::Powf(Box::new(positive(sub(rng))), rng.uniform(-2.0, 3.0)),
        15 => Expr::LeakyRelu(Box::new(sub(rng)), 0.01 + 0.2 * rng.unit()),
        _ => {
            let n = 2 + rng.below(3);
            Expr::Sum((0..n).map(|_| sub(rng)).collect())
        }
    }
}

/// A random case: a tree over 1 to `inputs` inputs of depth 1 to `depth` (both drawn) and at most
/// `size` operations (drawn again until it fits), and a point with coordinates uniform in
/// `range`.
pub fn random_case(
    rng: &mut Rng,
    vocabulary: Vocabulary,
    [inputs, depth, size]: [usize; 3],
    range: (f64, f64),
) -> (Expr, Vec<f64>) {
    let inputs = 1 + rng.below(inputs);
    let depth = 1 + rng.below(depth);
    let mut e = random_expr(rng, vocabulary, inputs, depth);
    while e.size() > size {
        e = random_expr(rng, vocabulary, inputs, depth);
    }
    let x = (0..inputs).map(|_| rng.uniform(range.0, range.1)).collect();
    (e, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_matches_hand_evaluation() {
        // relu(x0 * x1 + 1) at (2, 3) = 7
        let e = Expr::un(
            Unary::Relu,
            Expr::bin(
                Binary::Add,
                Expr::bin(Binary::Mul, Expr::x(0), Expr::x(1)),
                Expr::Const(1.0),
            ),
        );
        assert_eq!(e.eval(&[2.0_f64, 3.0]), 7.0);
        assert_eq!(e.kink_distance(&[2.0, 3.0]), 7.0);
        assert_eq!(e.to_string(), "relu(((x0 * x1) + 1))");
    }

    #[test]
    fn generation_is_deterministic_and_bounded() {
        for v in [Vocabulary::Original, Vocabulary::All] {
            let a = random_expr(&mut Rng::new(7), v, 3, 8);
            let b = random_expr(&mut Rng::new(7), v, 3, 8);
            assert_eq!(a, b);
            for seed in 0..200 {
                let e = random_expr(&mut Rng::new(seed), v, 4, 8);
                assert!(e.size() < 100_000);
            }
        }
    }

    /// Regression pin (printed by the generator at 5f48b8b, before the testkit gained its
    /// appended operations): the first cases of a stream are the same trees at the same points,
    /// so a seed named in an old report still means its expression.
    #[test]
    fn the_original_vocabulary_keeps_old_seeds_expressions() {
        let mut rng = Rng::new(0x1234);
        let pinned = [
            "min(x0, x0) @ [-1.4343370502104302]",
            "sigmoid(powf((softplus(min(powi((leaky_relu(x5, 0.19641080545196044) + (x0 - x3)), \
             3), x0)) + 0.1), 0.3106320740069215)) @ [1.7401729768011287, 0.14710232821345492, \
             0.3029516146862088, -0.5767288250498597, -1.704754050359234, -1.4627970855344747, \
             0.5708044169275897, 1.2461545990166396]",
        ];
        for want in pinned {
            let (e, x) = random_case(&mut rng, Vocabulary::Original, [8, 8, 400], (-2.0, 2.0));
            assert_eq!(format!("{e} @ {x:?}"), want);
        }
    }

    #[test]
    fn the_full_vocabulary_draws_every_operation() {
        let mut seen = std::collections::HashSet::new();
        fn walk(e: &Expr, seen: &mut std::collections::HashSet<String>) {
            match e {
                Expr::Unary(op, a) => {
                    seen.insert(op.name().to_string());
                    walk(a, seen);
                }
                Expr::Binary(op, a, b) => {
                    seen.insert(op.name().to_string());
                    walk(a, seen);
                    walk(b, seen);
                }
                Expr::Powi(a, _) | Expr::Powf(a, _) | Expr::LeakyRelu(a, _) | Expr::Scale(a, _) => {
                    walk(a, seen)
                }
                Expr::Sum(t) => t.iter().for_each(|a| walk(a, seen)),
                _ => {}
            }
        }
        for seed in 0..400 {
            walk(
                &random_expr(&mut Rng::new(seed), Vocabulary::All, 3, 6),
                &mut seen,
            );
        }
        for op in Unary::ALL.iter().filter(|&&u| u != Unary::Square) {
            assert!(seen.contains(op.name()), "{} never drawn", op.name());
        }
        for op in Binary::ALL {
            assert!(seen.contains(op.name()), "{} never drawn", op.name());
        }
    }
}
