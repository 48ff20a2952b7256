//! The `expressions` suite: random expression trees over every operation (`expr.rs`'s
//! generator, in its original vocabulary and in the full one), each at a random point, in `f64` and (every fourth) `f32`, reverse mode against
//! forward mode and against Richardson-extrapolated differences.

use std::sync::Arc;

use super::expr::{random_case, Expr, ExprFn, Rng, Vocabulary};
use super::judge::{gradient_case, CheckScalar};
use super::{Case, Options, Suite};

pub fn cases(o: &Options) -> Vec<Case> {
    // `expr #k`: the original vocabulary, so a seed keeps its trees; `expr+ #k`: every
    // operation (the elementary functions appended later too), from a stream of its own.
    let streams = [
        (Vocabulary::Original, "expr", 0x6578_7072, o.cases),
        (Vocabulary::All, "expr+", 0x6578_702b, o.cases.div_ceil(2)),
    ];
    let mut cases = Vec::new();
    for (vocabulary, prefix, salt, count) in streams {
        let mut rng = Rng::new(o.seed ^ salt);
        cases.extend((0..count).map(|k| {
            let (e, x) = random_case(&mut rng, vocabulary, [8, 8, 400], (-2.0, 2.0));
            let e = Arc::new(e);
            if k % 4 == 3 {
                expr_case::<f32>(Suite::Expressions, format!("{prefix} #{k} f32"), e, x)
            } else {
                expr_case::<f64>(Suite::Expressions, format!("{prefix} #{k} f64"), e, x)
            }
        }));
    }
    cases
}

fn expr_case<S: CheckScalar>(suite: Suite, name: String, e: Arc<Expr>, x: Vec<f64>) -> Case {
    Case {
        suite,
        name,
        run: Box::new(move || {
            let f = ExprFn((*e).clone());
            let kink = e.kink_distance(&x);
            gradient_case::<S, _>(&f, &x, kink, None, &|| format!("f(x) = {}", e))
        }),
    }
}
