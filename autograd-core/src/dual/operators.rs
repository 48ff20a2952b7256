//! The arithmetic operators, their assigning and scalar-operand forms, comparisons, `Default`,
//! `Sum` and `Product` for a dual type (invoked by `dual_rules!`): `+` and `-` add tangents, `*`
//! and `/` apply the product and quotient rules.

/// The operators of dual type `$T` (generics `$gen`), from its tangent operations.
macro_rules! dual_operators {
    ([$($gen:tt)*] $T:ty) => {
        impl<$($gen)*> Add for $T {
            type Output = Self;
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                self.lanes_add(rhs, self.re + rhs.re)
            }
        }

        impl<$($gen)*> Sub for $T {
            type Output = Self;
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                self.lanes_sub(rhs, self.re - rhs.re)
            }
        }

        impl<$($gen)*> Mul for $T {
            type Output = Self;
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                // (a + a'ε)(b + b'ε) = ab + (a'b + ab')ε
                Self::combine(self.re * rhs.re, self, rhs.re, rhs, self.re)
            }
        }

        impl<$($gen)*> Div for $T {
            type Output = Self;
            #[inline(always)]
            fn div(self, rhs: Self) -> Self {
                // (a/b)' = a'/b - (a/b) b'/b
                let q = self.re / rhs.re;
                let inv = S::ONE / rhs.re;
                // d/db = -q/b, not -q * (1/b): 1/b overflows for a subnormal b even where q/b
                // does not (0/b). Guarded: for a tiny divisor (x / 1e-20 in f32) -q/b does
                // overflow, and a divisor with a zero tangent (a constant) must not turn that
                // into 0 * inf = NaN.
                Self::combine_guarded(q, self, inv, rhs, -(q / rhs.re))
            }
        }

        impl<$($gen)*> Neg for $T {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                self.lanes_neg()
            }
        }

        // A plain scalar on the right: a constant (tangent 0).
        impl<$($gen)*> Add<S> for $T {
            type Output = Self;
            #[inline(always)]
            fn add(mut self, rhs: S) -> Self {
                self.re += rhs;
                self
            }
        }

        impl<$($gen)*> Sub<S> for $T {
            type Output = Self;
            #[inline(always)]
            fn sub(mut self, rhs: S) -> Self {
                self.re -= rhs;
                self
            }
        }

        impl<$($gen)*> Mul<S> for $T {
            type Output = Self;
            #[inline(always)]
            fn mul(self, rhs: S) -> Self {
                self.chain(self.re * rhs, rhs)
            }
        }

        impl<$($gen)*> Div<S> for $T {
            type Output = Self;
            #[inline(always)]
            fn div(self, rhs: S) -> Self {
                self.chain(self.re / rhs, S::ONE / rhs)
            }
        }

        impl<$($gen)*> AddAssign for $T {
            #[inline(always)]
            fn add_assign(&mut self, rhs: Self) {
                *self = *self + rhs;
            }
        }
        impl<$($gen)*> SubAssign for $T {
            #[inline(always)]
            fn sub_assign(&mut self, rhs: Self) {
                *self = *self - rhs;
            }
        }
        impl<$($gen)*> MulAssign for $T {
            #[inline(always)]
            fn mul_assign(&mut self, rhs: Self) {
                *self = *self * rhs;
            }
        }
        impl<$($gen)*> DivAssign for $T {
            #[inline(always)]
            fn div_assign(&mut self, rhs: Self) {
                *self = *self / rhs;
            }
        }
        impl<$($gen)*> AddAssign<S> for $T {
            #[inline(always)]
            fn add_assign(&mut self, rhs: S) {
                *self = *self + rhs;
            }
        }
        impl<$($gen)*> SubAssign<S> for $T {
            #[inline(always)]
            fn sub_assign(&mut self, rhs: S) {
                *self = *self - rhs;
            }
        }
        impl<$($gen)*> MulAssign<S> for $T {
            #[inline(always)]
            fn mul_assign(&mut self, rhs: S) {
                *self = *self * rhs;
            }
        }
        impl<$($gen)*> DivAssign<S> for $T {
            #[inline(always)]
            fn div_assign(&mut self, rhs: S) {
                *self = *self / rhs;
            }
        }

        /// Compares the real parts only (as every [`Scalar`]).
        impl<$($gen)*> PartialEq for $T {
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                self.re == other.re
            }
        }

        /// Orders by the real parts only (as every [`Scalar`]).
        impl<$($gen)*> PartialOrd for $T {
            #[inline(always)]
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.re.partial_cmp(&other.re)
            }
        }

        /// The constant 0.
        impl<$($gen)*> Default for $T {
            #[inline(always)]
            fn default() -> Self {
                Self::constant(S::ZERO)
            }
        }

        impl<$($gen)*> core::iter::Sum for $T {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::constant(S::ZERO), |a, b| a + b)
            }
        }
        impl<'a, $($gen)*> core::iter::Sum<&'a $T> for $T {
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.fold(Self::constant(S::ZERO), |a, b| a + *b)
            }
        }
        impl<$($gen)*> core::iter::Product for $T {
            fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::constant(S::ONE), |a, b| a * b)
            }
        }
        impl<'a, $($gen)*> core::iter::Product<&'a $T> for $T {
            fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.fold(Self::constant(S::ONE), |a, b| a * *b)
            }
        }
    };
}

/// A concrete plain scalar on the left (`2.0 * x`) for duals over `f32` and `f64`.
macro_rules! dual_left_scalar {
    ([$($gen:tt)*] $T:ty, $t:ty) => {
        impl<$($gen)*> Add<$T> for $t {
            type Output = $T;
            #[inline(always)]
            fn add(self, rhs: $T) -> $T {
                rhs + self
            }
        }
        impl<$($gen)*> Sub<$T> for $t {
            type Output = $T;
            #[inline(always)]
            fn sub(self, rhs: $T) -> $T {
                -rhs + self
            }
        }
        impl<$($gen)*> Mul<$T> for $t {
            type Output = $T;
            #[inline(always)]
            fn mul(self, rhs: $T) -> $T {
                rhs * self
            }
        }
        impl<$($gen)*> Div<$T> for $t {
            type Output = $T;
            #[inline(always)]
            fn div(self, rhs: $T) -> $T {
                <$T>::constant(self) / rhs
            }
        }
    };
}

pub(crate) use {dual_left_scalar, dual_operators};
