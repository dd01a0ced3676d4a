//! Locking that survives a poisoned mutex: a panic in one tool or child must not take the
//! session's shared state down with it, and every value kept behind these locks is valid
//! after any partial update.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, taking the value even if a panicking holder poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
