//! The `second-order` suite: Hessians by forward over reverse against forward over forward, one
//! Hessian-vector product against H v, and the Hessian against Richardson-extrapolated
//! differences of reverse-mode gradients.

use autograd_core::testkit::Rosenbrock;
use autograd_core::{
    gradient_reverse, hessian, hessian_forward, hessian_vector_product, Dual, Function, Tape,
    Tolerance,
};
use autograd_macros::stmt;

use super::expr::{random_case, ExprFn, Rng, Vocabulary};
use super::fd::{extrapolate, judge_fd, step, Estimate};
use super::judge::{fmt_vec, judge, scaled, CheckScalar, Verdict};
use super::{Case, Options, Outcome, Skip, Suite};

const HESSIAN_TAPE: usize = 1 << 12;

/// Hessian by forward over reverse, against forward over forward (tight) and central differences
/// of reverse-mode gradients (loose); one HVP against H v.
/// `formula` names the function in a failure; `kink_distance` is its distance from the nearest
/// kink at `x` (`Expr::kink_distance`).
fn hessian_case<F: Function + Send + Sync + 'static>(
    name: String,
    f: F,
    formula: impl Fn() -> String + Send + Sync + 'static,
    kink_distance: f64,
    x: Vec<f64>,
    v: Vec<f64>,
) -> Case {
    Case {
        suite: Suite::SecondOrder,
        name: name.clone(),
        run: Box::new(move || {
            let n = x.len();
            let describe = || format!("{name}: f(x) = {} at x = {}", formula(), fmt_vec(&x));
            // The plain value is the reference: where it is not finite the point is outside the
            // function's domain.
            let plain: f64 = f.eval(&x);
            if !plain.is_finite() {
                return Outcome::skipped(Skip::Undefined);
            }
            let mut tape = Box::new(Tape::<Dual<f64>, HESSIAN_TAPE>::new());
            let (mut g, mut h) = (vec![0.0; n], vec![0.0; n * n]);
            let value = match hessian(&f, &mut tape, &x, &mut g, &mut h) {
                Ok(v) => v,
                Err(err) => return Outcome::failure(format!("{}: {err}", describe())),
            };
            let (mut g2, mut h2) = (vec![0.0; n], vec![0.0; n * n]);
            if let Err(err) = hessian_forward(&f, &x, &mut g2, &mut h2) {
                return Outcome::failure(format!("{}: {err}", describe()));
            }
            let between = Tolerance::between_modes::<f64>();
            let mut outcome = Outcome::default();
            if let Verdict::Differ { .. } = judge(&[value], &[plain], scaled(between, &[plain])) {
                outcome.failure = Some(format!(
                    "{}\n  forward over reverse's value {value:e} differs from the plain value {plain:e}",
                    describe()
                ));
                return outcome;
            }
            // Forward over reverse (gradient and Hessian) against forward over forward.
            let label = "forward-over-reverse vs forward-over-forward";
            for (what, actual, reference) in [("gradient", &g, &g2), ("H", &h, &h2)] {
                match judge(actual, reference, scaled(between, reference)) {
                    Verdict::Agree { error, non_finite } => {
                        outcome.errors.push((label, error));
                        outcome.non_finite_agreed |= non_finite > 0;
                    }
                    Verdict::Differ { error, index } => {
                        outcome.errors.push((label, error));
                        outcome.failure = Some(format!(
                            "{}\n  {label}: {what} differs at entry {index}\n  {what} (f-o-r) = {}\n  {what} (f-o-f) = {}",
                            describe(),
                            fmt_vec(actual),
                            fmt_vec(reference)
                        ));
                        return outcome;
                    }
                    Verdict::ReferenceNonFinite => {
                        return Outcome::skipped(Skip::ReferenceNonFinite)
                    }
                }
            }
            if outcome.non_finite_agreed {
                outcome.fd_skipped = Some(Skip::NonFinite);
                return outcome;
            }
            // H v by one HVP against the product with the full Hessian.
            let (mut g3, mut hv) = (vec![0.0; n], vec![0.0; n]);
            if let Err(err) = hessian_vector_product(&f, &mut tape, &x, &v, &mut g3, &mut hv) {
                return Outcome::failure(format!("{}: {err}", describe()));
            }
            let hv_ref: Vec<f64> = (0..n)
                .map(|r| (0..n).map(|c| h[r * n + c] * v[c]).sum())
                .collect();
            match judge(&hv, &hv_ref, scaled(between, &h)) {
                Verdict::Agree { error, .. } => outcome.errors.push(("HVP vs H v", error)),
                Verdict::Differ { error, index } => {
                    outcome.errors.push(("HVP vs H v", error));
                    outcome.failure = Some(format!(
                        "{}\n  HVP differs from H v at {index}\n  hvp = {}\n  H v = {}",
                        describe(),
                        fmt_vec(&hv),
                        fmt_vec(&hv_ref)
                    ));
                    return outcome;
                }
                Verdict::ReferenceNonFinite => return Outcome::skipped(Skip::ReferenceNonFinite),
            }
            // Central differences of reverse-mode gradients, column by column.
            if kink_distance < 1e-3 {
                outcome.fd_skipped = Some(Skip::NearKink);
                return outcome;
            }
            // Richardson-extrapolated central differences of reverse-mode gradients.
            let mut fd = vec![
                Estimate {
                    value: 0.0,
                    error: 0.0
                };
                n * n
            ];
            for j in 0..n {
                let h = step(x[j]);
                let column = |s: f64| -> Option<Vec<f64>> {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[j] += s;
                    xm[j] -= s;
                    let (mut gp, mut gm) = (vec![0.0; n], vec![0.0; n]);
                    let ok = <f64 as CheckScalar>::with_tape(|t| {
                        gradient_reverse(&f, t, &xp, &mut gp).is_ok()
                            && gradient_reverse(&f, t, &xm, &mut gm).is_ok()
                    });
                    let width = xp[j] - xm[j];
                    ok.then(|| (0..n).map(|r| (gp[r] - gm[r]) / width).collect())
                };
                let (Some(d1), Some(d2), Some(d4)) = (column(h), column(h / 2.0), column(h / 4.0))
                else {
                    return Outcome::failure(format!("{}: reverse mode failed", describe()));
                };
                for r in 0..n {
                    match extrapolate(d1[r], d2[r], d4[r]) {
                        Ok(e) => fd[r * n + j] = e,
                        Err(reason) => {
                            outcome.fd_skipped = Some(reason);
                            return outcome;
                        }
                    }
                }
            }
            judge_fd(
                &mut outcome,
                &h,
                &fd,
                Tolerance::finite_differences::<f64>(),
                &|i, fd| {
                    format!(
                    "{}\n  Hessian vs differences of gradients differ at entry {i}\n  H  = {}\n  fd = {}",
                    describe(),
                    fmt_vec(&h),
                    fmt_vec(fd)
                )
                },
            );
            outcome
        }),
    }
}

pub fn cases(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6865_7373);
    let mut cases = Vec::new();
    for n in 2..=5 {
        for k in 0..3 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
            cases.push(hessian_case(
                format!("rosenbrock n={n} #{k}"),
                Rosenbrock,
                || "rosenbrock(x)".to_string(),
                f64::INFINITY,
                x.clone(),
                v.clone(),
            ));
            // The same with each term one statement (`stmt!`): its partials computed on the
            // tape's dual numbers.
            cases.push(hessian_case(
                format!("rosenbrock, stmt! n={n} #{k}"),
                RosenbrockStatements,
                || "rosenbrock(x), each term stmt!".to_string(),
                f64::INFINITY,
                x,
                v,
            ));
        }
    }
    let count = (o.cases / 4).max(10);
    // `expr #k` in the original vocabulary (the seeds keep their trees), then `expr+ #k` over
    // every operation, from a stream of its own.
    let mut full = Rng::new(o.seed ^ 0x0068_6573_732b);
    for (vocabulary, prefix, count) in [
        (Vocabulary::Original, "expr", count),
        (Vocabulary::All, "expr+", count.div_ceil(2)),
    ] {
        let rng = if vocabulary == Vocabulary::Original {
            &mut rng
        } else {
            &mut full
        };
        for k in 0..count {
            let (e, x) = random_case(rng, vocabulary, [4, 6, 200], (-1.5, 1.5));
            let v: Vec<f64> = (0..x.len()).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let (formula, kink) = (e.to_string(), e.kink_distance(&x));
            let f = ExprFn(e);
            cases.push(hessian_case(
                format!("{prefix} #{k}"),
                f,
                move || formula.clone(),
                kink,
                x,
                v,
            ));
        }
    }
    cases
}

/// Rosenbrock with each term one statement (`stmt!`), the testkit's text inside it.
#[derive(Clone, Copy, Debug)]
struct RosenbrockStatements;

impl Function for RosenbrockStatements {
    fn eval<T: autograd_core::Number>(&self, x: &[T]) -> T {
        let mut sum = T::zero();
        for w in x.windows(2) {
            let (a, b) = (w[0], w[1]);
            sum = stmt!(sum + T::from_f64(100.0) * (b - a * a).square() + (T::one() - a).square());
        }
        sum
    }
}
