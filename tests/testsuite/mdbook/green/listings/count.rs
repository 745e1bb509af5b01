let words = "one two three".split_whitespace().count();
println!("words = {words}");
