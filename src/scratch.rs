//! Private temporary directories: a fresh directory of an unpredictable name, readable by
//! its owner alone (`mkdtemp(3)`), for files the tools and the tests write — never a
//! predictable name under /tmp, which another user could create first or link elsewhere.

use std::path::PathBuf;

/// A new private directory `<temp>/<prefix>-XXXXXX` (mode 0700); the caller removes it.
pub fn private_dir(prefix: &str) -> std::io::Result<PathBuf> {
    let mut template = std::env::temp_dir().join(format!("{prefix}-XXXXXX")).into_os_string().into_encoded_bytes();
    if template.contains(&0) {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the temporary path"));
    }
    template.push(0);
    // SAFETY: a NUL-terminated, writable template ending in XXXXXX, as mkdtemp requires;
    // it writes the name in place.
    let made = unsafe { libc::mkdtemp(template.as_mut_ptr().cast()) };
    if made.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    template.pop();
    // SAFETY: the bytes came from an OsString and mkdtemp replaced ASCII X's by ASCII.
    Ok(PathBuf::from(unsafe { std::ffi::OsString::from_encoded_bytes_unchecked(template) }))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn each_directory_is_new_and_private() {
        let (a, b) = (super::private_dir("signorini-test").unwrap(), super::private_dir("signorini-test").unwrap());
        assert_ne!(a, b);
        for d in [&a, &b] {
            assert_eq!(std::fs::metadata(d).unwrap().permissions().mode() & 0o777, 0o700);
            std::fs::remove_dir(d).unwrap();
        }
    }
}
