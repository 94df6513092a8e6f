//! What gets verified: borrowed items, and a columnar batch (one buffer plus offsets) that
//! packets, Arrow columns and the C ABI can fill without copying each field.

use crate::error::Error;

/// One signature to verify. Fields borrow; wrong lengths are not an error here but an
/// `Invalid(BadLength)` verdict from the engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Item<'a> {
    pub public_key: &'a [u8],
    pub message: &'a [u8],
    pub signature: &'a [u8],
    /// The context string of schemes that have one (ML-DSA, FIPS 204 §5.2: at most 255
    /// bytes). Must be empty for Ed25519, which has none: a non-empty one is rejected
    /// (`BadContext`), never ignored.
    pub context: &'a [u8],
}

impl<'a> Item<'a> {
    /// An item with an empty context.
    pub fn new(public_key: &'a [u8], message: &'a [u8], signature: &'a [u8]) -> Self {
        Item {
            public_key,
            message,
            signature,
            context: &[],
        }
    }

    /// The same item with `context` as its context string.
    pub fn with_context(self, context: &'a [u8]) -> Self {
        Item { context, ..self }
    }
}

/// Anything the engine can read items from by index. Implemented for slices of [`Item`]
/// and for [`ItemBatch`]; implement it for your own columnar layout to avoid a copy.
///
/// `item(i)` is called only for `i < len()`.
pub trait ItemSource: Sync {
    fn len(&self) -> usize;
    fn item(&self, index: usize) -> Item<'_>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ItemSource for [Item<'_>] {
    fn len(&self) -> usize {
        <[Item<'_>]>::len(self)
    }
    fn item(&self, index: usize) -> Item<'_> {
        self[index]
    }
}

impl ItemSource for Vec<Item<'_>> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    fn item(&self, index: usize) -> Item<'_> {
        self[index]
    }
}

/// A byte range inside an [`ItemBatch`]'s buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
}

impl Span {
    fn end(self) -> Option<usize> {
        self.offset.checked_add(self.len)
    }
}

/// Where one item's three fields lie in the batch buffer. Fields may overlap or share
/// bytes (a packet's signed message contains its keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ItemSpans {
    pub public_key: Span,
    pub message: Span,
    pub signature: Span,
    /// Empty (the default) for schemes without a context.
    pub context: Span,
}

/// A columnar batch: one owned byte buffer and, per item, the spans of its fields.
///
/// Every span is checked against the buffer when the batch is built, so reading an item
/// can never go out of bounds.
#[derive(Clone, Debug, Default)]
pub struct ItemBatch {
    bytes: Vec<u8>,
    spans: Vec<ItemSpans>,
}

impl ItemBatch {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `items` items of about `bytes` bytes in total.
    pub fn with_capacity(items: usize, bytes: usize) -> Self {
        ItemBatch {
            bytes: Vec::with_capacity(bytes),
            spans: Vec::with_capacity(items),
        }
    }

    /// Adopt a filled buffer and its spans; fails if any span lies outside the buffer.
    pub fn from_parts(bytes: Vec<u8>, spans: Vec<ItemSpans>) -> Result<Self, Error> {
        for (index, s) in spans.iter().enumerate() {
            for span in [s.public_key, s.message, s.signature, s.context] {
                if span.end().is_none_or(|end| end > bytes.len()) {
                    return Err(Error::SpanOutOfBounds {
                        index,
                        offset: span.offset,
                        len: span.len,
                        buffer_len: bytes.len(),
                    });
                }
            }
        }
        Ok(ItemBatch { bytes, spans })
    }

    /// Append one item, copying its fields into the buffer.
    pub fn push(&mut self, item: Item<'_>) {
        let mut append = |field: &[u8]| {
            let span = Span {
                offset: self.bytes.len(),
                len: field.len(),
            };
            self.bytes.extend_from_slice(field);
            span
        };
        let spans = ItemSpans {
            public_key: append(item.public_key),
            message: append(item.message),
            signature: append(item.signature),
            context: append(item.context),
        };
        self.spans.push(spans);
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The item at `index`, or `None` past the end.
    pub fn get(&self, index: usize) -> Option<Item<'_>> {
        let s = self.spans.get(index)?;
        // In bounds by the check in `from_parts` (or by construction in `push`).
        let field = |span: Span| &self.bytes[span.offset..span.offset + span.len];
        Some(Item {
            public_key: field(s.public_key),
            message: field(s.message),
            signature: field(s.signature),
            context: field(s.context),
        })
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }
}

impl ItemSource for ItemBatch {
    fn len(&self) -> usize {
        self.spans.len()
    }
    fn item(&self, index: usize) -> Item<'_> {
        let s = self.spans[index];
        let field = |span: Span| &self.bytes[span.offset..span.offset + span.len];
        Item {
            public_key: field(s.public_key),
            message: field(s.message),
            signature: field(s.signature),
            context: field(s.context),
        }
    }
}

impl<'a> FromIterator<Item<'a>> for ItemBatch {
    fn from_iter<I: IntoIterator<Item = Item<'a>>>(iter: I) -> Self {
        let mut batch = ItemBatch::new();
        for item in iter {
            batch.push(item);
        }
        batch
    }
}
