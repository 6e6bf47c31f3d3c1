use agentspine_fs::Backend;

/// Under `no-openat2`, CI sets `AGENTSPINE_EXPECT_BACKEND=walk`: detection
/// must have fallen back, or the second run would silently test openat2
/// again. Without the variable, a Linux 5.6+ kernel must offer openat2.
#[test]
fn detects_expected_backend() {
    let detected = Backend::detect();
    match std::env::var("AGENTSPINE_EXPECT_BACKEND").as_deref() {
        Ok("walk") => assert_eq!(detected, Backend::Walk),
        Ok("openat2") => assert_eq!(detected, Backend::Openat2),
        Ok(other) => panic!("AGENTSPINE_EXPECT_BACKEND={other} is neither walk nor openat2"),
        Err(_) => {}
    }
    assert!(Backend::Walk.available());
}

#[test]
fn unavailable_backend_is_refused_clearly() {
    if Backend::Openat2.available() {
        return;
    }
    let err = agentspine_fs::Reader::with_backend(Backend::Openat2, agentspine_fs::Budget::UNLIMITED)
        .expect_err("openat2 is filtered, so asking for it must fail");
    assert!(err.to_string().contains("openat2 backend is not available"), "{err}");
}
