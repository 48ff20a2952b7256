//! The `expressions` suite: random expression trees over every operation (`expr.rs`'s
//! generator), each at a random point, in `f64` and (every fourth) `f32`, reverse mode against
//! forward mode and against Richardson-extrapolated differences.

use std::sync::Arc;

use super::expr::{random_case, Expr, ExprFn, Rng};
use super::judge::{gradient_case, CheckScalar};
use super::{Case, Options, Suite};

pub fn cases(o: &Options) -> Vec<Case> {
    let mut rng = Rng::new(o.seed ^ 0x6578_7072);
    (0..o.cases)
        .map(|k| {
            let (e, x) = random_case(&mut rng, [8, 8, 400], (-2.0, 2.0));
            let e = Arc::new(e);
            if k % 4 == 3 {
                expr_case::<f32>(Suite::Expressions, format!("expr #{k} f32"), e, x)
            } else {
                expr_case::<f64>(Suite::Expressions, format!("expr #{k} f64"), e, x)
            }
        })
        .collect()
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
