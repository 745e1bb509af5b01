// ANCHOR: area
fn area(width: u32, height: u32) -> u32 {
    width * height
}
// ANCHOR_END: area

fn main() {
    // ANCHOR: call
    println!("{}", area(3, 4));
    // ANCHOR_END: call
}
