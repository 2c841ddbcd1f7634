//! Entity name filters as the standard simulator API defines them: "Entity names are matched
//! with the filter regular expression. ... The regular expression syntax is POSIX Extended"
//! (simulation_interfaces 1.x, `msg/EntityFilters.msg`). The C library's own POSIX
//! `regcomp`/`regexec` with `REG_EXTENDED` are used, so the syntax is exactly the
//! standard's (not a Perl-like dialect); a name matches when the expression matches
//! somewhere in it (anchor with `^…$` for whole names), as `regexec` searches.

use std::ffi::CString;

/// A compiled POSIX extended regular expression.
pub struct NameFilter {
    regex: Box<libc::regex_t>,
}

// SAFETY: a compiled `regex_t` is only read by `regexec`, which POSIX requires to be safe
// to call concurrently on the same compiled expression; `regfree` needs `&mut self`.
unsafe impl Send for NameFilter {}
unsafe impl Sync for NameFilter {}

impl NameFilter {
    /// Compiles `pattern`; the error is the C library's message, with the pattern.
    pub fn new(pattern: &str) -> Result<Self, String> {
        let c = CString::new(pattern).map_err(|_| format!("filter {pattern:?}: contains a NUL byte"))?;
        // SAFETY: regex_t is a plain C struct that regcomp initialises; zeroed is a valid
        // bit pattern for it before the call.
        let mut regex: Box<libc::regex_t> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `regex` points to writable storage, `c` is NUL-terminated.
        let code = unsafe { libc::regcomp(&mut *regex, c.as_ptr(), libc::REG_EXTENDED | libc::REG_NOSUB) };
        if code != 0 {
            let mut message = [0u8; 256];
            // SAFETY: the buffer and its length are given; regerror NUL-terminates within it.
            let n = unsafe { libc::regerror(code, &*regex, message.as_mut_ptr().cast(), message.len()) };
            let text = String::from_utf8_lossy(&message[..n.saturating_sub(1).min(message.len())]).into_owned();
            // regcomp failed: nothing to free (POSIX leaves the struct undefined).
            return Err(format!("filter {pattern:?} is not a POSIX extended regular expression: {text}"));
        }
        Ok(Self { regex })
    }

    /// Whether the expression matches somewhere in `name` (a name with a NUL byte never
    /// matches: entity names have none).
    pub fn matches(&self, name: &str) -> bool {
        let Ok(c) = CString::new(name) else { return false };
        // SAFETY: a compiled expression (new succeeded) and a NUL-terminated subject; with
        // REG_NOSUB no match array is written.
        unsafe { libc::regexec(&*self.regex, c.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
    }
}

impl Drop for NameFilter {
    fn drop(&mut self) {
        // SAFETY: compiled by regcomp in `new`, freed once.
        unsafe { libc::regfree(&mut *self.regex) };
    }
}

impl std::fmt::Debug for NameFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameFilter")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_extended_syntax_searches_the_name() {
        let f = NameFilter::new("^box_[0-9]+$").unwrap();
        assert!(f.matches("box_12"));
        assert!(!f.matches("box_"));
        assert!(!f.matches("a_box_1"));
        // Unanchored: a match anywhere.
        let f = NameFilter::new("foot").unwrap();
        assert!(f.matches("solo/lf_foot") && !f.matches("solo/base_link"));
        // Extended: alternation and intervals without backslashes.
        let f = NameFilter::new("^(ground|crate)$").unwrap();
        assert!(f.matches("ground") && f.matches("crate") && !f.matches("groundx"));
        let f = NameFilter::new("^a{2}$").unwrap();
        assert!(f.matches("aa") && !f.matches("a"));
        // POSIX classes, which Perl-like dialects spell otherwise.
        let f = NameFilter::new("^[[:alpha:]]+$").unwrap();
        assert!(f.matches("solo") && !f.matches("solo1"));
    }

    #[test]
    fn a_malformed_expression_is_an_error_naming_it() {
        for bad in ["(", "a{2", "[z-a]"] {
            let e = NameFilter::new(bad).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")) && e.contains("POSIX"), "{e}");
        }
        assert!(NameFilter::new("a\0b").unwrap_err().contains("NUL"));
    }
}
