use std::fmt;

/// A point.
#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
}

impl Point {
    /// Makes one.
    pub fn new(x: i32) -> Self {
        Point { x }
    }

    pub fn norm(&self) -> i32 {
        self.x.abs()
    }
}

mod a {
    pub fn run() {}
}

mod b {
    pub fn run() {}
}

pub fn helper() -> i32 {
    1
}
