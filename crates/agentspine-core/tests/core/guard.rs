//! A test file that is not declared in main.rs never runs; this catches it.

#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/core");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem != "main" {
            assert!(main.contains(&format!("mod {stem};")), "tests/core/{name} is not declared in main.rs");
        }
    }
}

/// Profile directories the user names (another agent's home) are treated
/// exactly as the built-in ones: never a project, a link to one
/// recognised, a project nested inside one still a project; from
/// `$AGENTSPINE_PROFILE_DIRS` and from the user configuration's `[roots]`.
#[test]
fn configured_profile_directories_are_never_a_project() {
    use agentspine_core::{Environment, Host, Request, RootKind, resolve};
    use agentspine_fs::{Budget, Reader};
    let p = crate::support::Project::new();
    p.home_file(".blun/AGENTS.md", "profile file\n").home_file(".blun/.git/HEAD", "x\n");
    p.home_file(".blun/src/proj/.git/HEAD", "x\n").home_file(".blun/src/proj/AGENTS.md", "nested project\n");
    p.home_file(".other/AGENTS.md", "other profile\n");
    std::os::unix::fs::symlink(p.home.join(".blun"), p.dir.path().join("blun-link")).unwrap();
    p.home_file(".config/agentspine/config.toml", "[roots]\nprofiles = [\"~/.other\"]\n");
    let home = p.home.clone();
    let profiles = std::env::join_paths([p.home.join(".blun")]).unwrap();
    let env = Environment::from_vars(|name| match name {
        "HOME" => Some(home.clone().into_os_string()),
        "AGENTSPINE_PROFILE_DIRS" => Some(profiles.clone()),
        _ => None,
    });
    let run = |cwd: std::path::PathBuf| {
        resolve(&Request::new(Host::Codex, cwd), &env, &Reader::new(Budget::UNLIMITED)).unwrap()
    };
    for cwd in [p.home.join(".blun"), p.dir.path().join("blun-link"), p.home.join(".other")] {
        let r = run(cwd.clone());
        assert_eq!(r.root_kind, RootKind::Profile, "{cwd:?}");
        assert!(r.parts.is_empty(), "{cwd:?}: no project file of a profile is read");
        assert_eq!(r.counters.dir_enumerations, 0);
    }
    let nested = run(p.home.join(".blun/src/proj"));
    assert_eq!(nested.root_kind, RootKind::Project);
    assert_eq!(nested.parts.iter().map(|p| p.text.trim()).collect::<Vec<_>>(), ["nested project"]);
}

/// Every host's home, as its profile names it, is a profile: never a
/// project, even holding a `.git` of its own (a dotfiles repository).
#[test]
fn every_host_home_is_never_a_project() {
    use agentspine_core::{Host, Request, RootKind, resolve};
    use agentspine_fs::{Budget, Reader};
    let p = crate::support::Project::new();
    let env = p.env();
    let mut homes = 0;
    for host in Host::ALL {
        let Some(home) = (host.profile().home)(&env) else { continue };
        homes += 1;
        std::fs::create_dir_all(home.join(".git/objects")).unwrap();
        std::fs::create_dir_all(home.join(".git/refs")).unwrap();
        std::fs::write(home.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(home.join("AGENTS.md"), "a profile's file\n").unwrap();
        for asked in Host::ALL {
            let r =
                resolve(&Request::new(asked, home.clone()), &env, &Reader::new(Budget::UNLIMITED)).unwrap();
            assert_eq!(r.root_kind, RootKind::Profile, "{asked} started in {host}'s home {home:?}");
            assert_eq!(r.counters.dir_enumerations, 0, "{asked} in {home:?}");
        }
    }
    assert_eq!(homes, Host::ALL.len() - 1, "every host but generic has a home");
}
