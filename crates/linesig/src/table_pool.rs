//! Memory for the hot-key cache's tables: fixed-size slots carved from 2 MiB-aligned
//! chunks that the kernel is asked to back with huge pages (Linux, `MADV_HUGEPAGE`).
//!
//! Why: a full 64 MB cache holds ~700 tables of ~91 KB, more than L3, and a cached
//! signature reads 43 rows of its key's table at random. With 4 KiB pages nearly every
//! such row also misses the TLB (the cache spans ~16,000 pages; Zen 4's L2 TLB maps
//! ~3,000), and in a virtual machine each miss is a two-level page walk. One 2 MiB page
//! maps 22 tables.
//!
//! Slots of one size are reused as tables come and go; chunks are never returned to the
//! OS, so the pool's memory is the most tables of each size ever alive at once (the
//! cache's bound, plus tables still in use by a work unit after their eviction), rounded
//! up to 2 MiB.

use std::alloc::{alloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::Mutex;

/// A chunk: one huge page.
const CHUNK: usize = 2 << 20;
/// Slots are cache-line aligned.
const SLOT_ALIGN: usize = 64;

/// Free slots by slot size: (bytes, addresses).
static FREE: Mutex<Vec<(usize, Vec<usize>)>> = Mutex::new(Vec::new());

/// A `[T]` of fixed length in pooled memory (or, past half a chunk, a chunk-aligned
/// allocation of its own), freed back to the pool on drop.
pub(crate) struct PooledSlice<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    /// The slot's size: what `Drop` returns it as.
    slot_bytes: usize,
}

// SAFETY: a PooledSlice owns its memory exclusively, as a Box<[T]> would.
unsafe impl<T: Copy + Send> Send for PooledSlice<T> {}
// SAFETY: shared access is read-only through `Deref`, as for a Box<[T]>.
unsafe impl<T: Copy + Sync> Sync for PooledSlice<T> {}

impl<T: Copy> PooledSlice<T> {
    /// A pooled copy of `items`.
    pub fn copy_of(items: &[T]) -> Self {
        assert!(
            align_of::<T>() <= SLOT_ALIGN,
            "table rows are 8-byte aligned"
        );
        let slot_bytes = size_of_val(items).max(1).next_multiple_of(SLOT_ALIGN);
        let addr = if slot_bytes > CHUNK / 2 {
            big_allocation(slot_bytes)
        } else {
            take_slot(slot_bytes)
        };
        let ptr = NonNull::new(addr as *mut T).expect("allocations are not null");
        // SAFETY: the slot holds `slot_bytes` ≥ size_of_val(items) bytes, aligned to 64
        // ≥ align_of::<T>(), and no one else has it; T is Copy, so a bitwise copy is a
        // valid value.
        unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), ptr.as_ptr(), items.len()) };
        PooledSlice {
            ptr,
            len: items.len(),
            slot_bytes,
        }
    }
}

impl<T: Copy> std::ops::Deref for PooledSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised values of T from `copy_of`, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Drop for PooledSlice<T> {
    fn drop(&mut self) {
        let addr = self.ptr.as_ptr() as usize;
        if self.slot_bytes > CHUNK / 2 {
            let layout = big_layout(self.slot_bytes);
            // SAFETY: allocated in `big_allocation` with this layout; T is Copy (no
            // element needs dropping).
            unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
            return;
        }
        let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, slots)) = free.iter_mut().find(|(b, _)| *b == self.slot_bytes) {
            slots.push(addr);
        }
    }
}

/// A free slot of `bytes`, carving a new chunk into such slots when none is left.
fn take_slot(bytes: usize) -> usize {
    let mut free = FREE.lock().unwrap_or_else(|e| e.into_inner());
    let i = match free.iter().position(|(b, _)| *b == bytes) {
        Some(i) => i,
        None => {
            free.push((bytes, Vec::new()));
            free.len() - 1
        }
    };
    let slots = &mut free[i].1;
    if slots.is_empty() {
        let chunk = chunk_allocation(CHUNK);
        slots.extend((0..CHUNK / bytes).rev().map(|k| chunk + k * bytes));
    }
    slots.pop().expect("a fresh chunk holds at least two slots")
}

fn big_layout(bytes: usize) -> Layout {
    Layout::from_size_align(bytes.next_multiple_of(CHUNK), CHUNK).expect("a valid layout")
}

fn big_allocation(bytes: usize) -> usize {
    chunk_allocation(big_layout(bytes).size())
}

/// `bytes` (a multiple of CHUNK), CHUNK-aligned, with huge pages asked for.
fn chunk_allocation(bytes: usize) -> usize {
    let layout = Layout::from_size_align(bytes, CHUNK).expect("a valid layout");
    // SAFETY: the layout's size is nonzero.
    let ptr = unsafe { alloc(layout) };
    if ptr.is_null() {
        handle_alloc_error(layout);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on memory this process owns; it changes no contents, and a kernel
    // without transparent huge pages ignores it.
    unsafe {
        libc::madvise(ptr.cast(), bytes, libc::MADV_HUGEPAGE);
    }
    ptr as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_their_rows_and_are_reused() {
        // A slot size no table uses (tests share the process's pool).
        let rows: Vec<[u64; 3]> = (0..1001u64).map(|i| [i; 3]).collect();
        let a = PooledSlice::copy_of(&rows);
        let b = PooledSlice::copy_of(&rows[..10]);
        assert_eq!(&a[..], &rows[..]);
        assert_eq!(&b[..], &rows[..10]);
        assert_eq!(a.as_ptr() as usize % SLOT_ALIGN, 0);
        let addr = a.as_ptr() as usize;
        drop(a);
        let c = PooledSlice::copy_of(&rows);
        assert_eq!(c.as_ptr() as usize, addr, "the freed slot is taken again");
        // Past half a chunk: an allocation of its own.
        let big: Vec<[u64; 3]> = vec![[7; 3]; 50_000];
        let d = PooledSlice::copy_of(&big);
        assert_eq!(&d[..], &big[..]);
        assert_eq!(d.as_ptr() as usize % CHUNK, 0);
    }
}
