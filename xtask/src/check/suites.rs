//! Which suite builds which cases: one module per suite (`ops.rs`, `seeds.rs`,
//! `expressions.rs`, `nn.rs`, `second_order.rs`, `provenance.rs`).

use super::{Case, Options, Suite};

pub fn cases(suite: Suite, o: &Options) -> Vec<Case> {
    match suite {
        Suite::Ops => super::ops::cases(o),
        Suite::Seeds => super::seeds::cases(),
        Suite::Expressions => super::expressions::cases(o),
        Suite::Nn => super::nn::cases(o),
        Suite::SecondOrder => super::second_order::cases(o),
        Suite::Provenance => super::provenance::cases(o),
    }
}
