//! The C ABI's key files: a handle holds the file's lock until it is closed (a second
//! open waits), each signature is on disk before it is returned, a key file is never
//! overwritten, and a damaged, missing or other-scheme file is refused with its status.

use linesig_ffi::key_file::*;
use linesig_ffi::leansig::*;
use linesig_ffi::{linesig_last_error_message, linesig_signature_len, LinesigStatus};
use std::ffi::{CStr, CString};
use std::ptr;
use std::sync::mpsc;
use std::time::Duration;

const L18: u32 = 6;

fn last_error() -> String {
    // SAFETY: the C ABI returns a NUL-terminated string valid until the next call.
    unsafe { CStr::from_ptr(linesig_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("linesig-ffi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A seeded L18 key written to `path` through `linesig_leansig_key_file_create`.
fn key_file(path: &CString) {
    let mut key = ptr::null_mut();
    let seed = [3u8; 32];
    // SAFETY: valid pointers and lengths.
    let status = unsafe { linesig_leansig_keygen(L18, seed.as_ptr(), 32, 0, 1, &mut key) };
    assert_eq!(status, LinesigStatus::Ok as i32, "{}", last_error());
    // SAFETY: a key from keygen and a NUL-terminated path.
    let status = unsafe { linesig_leansig_key_file_create(key, path.as_ptr()) };
    assert_eq!(status, LinesigStatus::Ok as i32, "{}", last_error());
    // A second create on the same path is refused: a key file is never overwritten.
    // SAFETY: as above.
    let status = unsafe { linesig_leansig_key_file_create(key, path.as_ptr()) };
    assert_eq!(status, LinesigStatus::IoError as i32);
    assert!(
        last_error().contains("never overwritten"),
        "{}",
        last_error()
    );
    // SAFETY: from keygen, freed once.
    unsafe { linesig_leansig_key_free(key) };
}

fn open(path: &CString) -> *mut LinesigLeansigKeyFile {
    let mut file = ptr::null_mut();
    // SAFETY: a NUL-terminated path and a writable pointer.
    let status = unsafe { linesig_leansig_key_file_open(L18, path.as_ptr(), &mut file) };
    assert_eq!(status, LinesigStatus::Ok as i32, "{}", last_error());
    file
}

fn next_epoch(file: *mut LinesigLeansigKeyFile) -> u64 {
    let mut info = LinesigLeansigKeyInfo::default();
    // SAFETY: an open handle and a writable info.
    let status = unsafe { linesig_leansig_key_file_info(file, &mut info) };
    assert_eq!(status, LinesigStatus::Ok as i32, "{}", last_error());
    info.next_epoch
}

fn sign(file: *mut LinesigLeansigKeyFile, epoch: u32) -> i32 {
    let message = [epoch as u8; 32];
    let mut signature = vec![0u8; linesig_signature_len(L18)];
    // SAFETY: an open handle, 32 readable bytes, a signature-sized buffer.
    unsafe {
        linesig_leansig_key_file_sign(
            file,
            epoch,
            message.as_ptr(),
            32,
            signature.as_mut_ptr(),
            signature.len(),
        )
    }
}

#[test]
fn a_key_file_signs_each_epoch_once_across_handles() {
    let dir = scratch("key-file");
    let path = CString::new(dir.join("v.key").to_str().unwrap()).unwrap();
    key_file(&path);

    let first = open(&path);
    assert_eq!(next_epoch(first), 0);
    assert_eq!(sign(first, 0), LinesigStatus::Ok as i32, "{}", last_error());
    assert_eq!(sign(first, 1), LinesigStatus::Ok as i32, "{}", last_error());

    // A second handle waits for the first one's lock, then reads what it saved.
    let (opened, waited) = mpsc::channel();
    let second_path = path.clone();
    let second = std::thread::spawn(move || {
        let file = open(&second_path);
        opened.send(()).unwrap();
        let next = next_epoch(file);
        let used = sign(file, 1);
        // SAFETY: opened above, closed once.
        unsafe { linesig_leansig_key_file_close(file) };
        (next, used)
    });
    assert!(
        waited.recv_timeout(Duration::from_millis(500)).is_err(),
        "a second handle opened the file while the first held it"
    );
    // SAFETY: opened above, closed once.
    unsafe { linesig_leansig_key_file_close(first) };
    waited.recv_timeout(Duration::from_secs(30)).unwrap();
    let (next, used) = second.join().unwrap();
    assert_eq!(next, 2, "the second handle saw the first one's signatures");
    assert_eq!(used, LinesigStatus::EpochUsed as i32);

    // Reopened: the state on disk is the one the last signature left.
    let again = open(&path);
    assert_eq!(next_epoch(again), 2);
    // SAFETY: opened above, closed once.
    unsafe { linesig_leansig_key_file_close(again) };
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_missing_damaged_or_other_scheme_file_is_refused() {
    let dir = scratch("key-file-bad");
    let path = CString::new(dir.join("v.key").to_str().unwrap()).unwrap();
    let mut file = ptr::null_mut();
    // SAFETY: a NUL-terminated path and a writable pointer.
    let status = unsafe { linesig_leansig_key_file_open(L18, path.as_ptr(), &mut file) };
    assert_eq!(status, LinesigStatus::IoError as i32);
    assert!(last_error().contains("v.key"), "{}", last_error());
    assert!(file.is_null());

    key_file(&path);
    // SAFETY: as above; scheme 7 is L32.
    let status = unsafe { linesig_leansig_key_file_open(7, path.as_ptr(), &mut file) };
    assert_eq!(status, LinesigStatus::BadKey as i32);
    assert!(file.is_null());

    let mut bytes = std::fs::read(dir.join("v.key")).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(dir.join("v.key"), &bytes).unwrap();
    // SAFETY: as above.
    let status = unsafe { linesig_leansig_key_file_open(L18, path.as_ptr(), &mut file) };
    assert_eq!(status, LinesigStatus::BadKey as i32);
    assert!(
        last_error().contains("truncated or altered"),
        "{}",
        last_error()
    );

    // SAFETY: null pointers are refused, not followed.
    let status = unsafe { linesig_leansig_key_file_open(L18, ptr::null(), &mut file) };
    assert_eq!(status, LinesigStatus::NullPointer as i32);
    assert_eq!(sign(ptr::null_mut(), 0), LinesigStatus::NullPointer as i32);
    // SAFETY: null is ignored.
    unsafe { linesig_leansig_key_file_close(ptr::null_mut()) };
    std::fs::remove_dir_all(&dir).ok();
}
