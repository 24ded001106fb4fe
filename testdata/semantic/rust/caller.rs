use crate::helper;

fn main() {
    let _ = helper();
}
