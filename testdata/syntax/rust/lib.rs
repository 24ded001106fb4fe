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
}

pub trait Shape {
    fn area(&self) -> f64;
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_works() {}
}

const LIMIT: u32 = 3;
