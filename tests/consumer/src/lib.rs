//! The README's code blocks, built and run as a user's crate runs them: `cargo test` here
//! runs each as a doctest.
#![doc = include_str!("../../../crates/bevy_tilewalk/README.md")]
