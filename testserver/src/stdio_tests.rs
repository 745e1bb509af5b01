//! Unit tests of `stdio.rs`.

use super::{PendingLine, SHOWN_BYTES};

#[test]
fn the_pending_line_is_what_follows_the_last_newline() {
    let mut pending = PendingLine::default();
    pending.extend(b"{\"a\":1}\n{\"b\"");
    assert_eq!(
        (pending.start.as_slice(), pending.length),
        (&b"{\"b\""[..], 4)
    );
    pending.extend(b":2");
    assert_eq!(
        (pending.start.as_slice(), pending.length),
        (&b"{\"b\":2"[..], 6)
    );
    pending.extend(b"}\n");
    assert_eq!((pending.start.as_slice(), pending.length), (&b""[..], 0));
    pending.extend(&vec![b'x'; 1000]);
    pending.extend(&vec![b'y'; 1000]);
    assert_eq!(pending.start, vec![b'x'; SHOWN_BYTES], "bounded");
    assert_eq!(pending.length, 2000);
}
