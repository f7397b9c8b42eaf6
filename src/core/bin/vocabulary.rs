//! Prints the core's closed sets of words as JSON (see
//! `agent_trajectories_core::vocabulary`): the build generates the
//! TypeScript unions and the docs' tables from this output.

fn main() {
    println!("{}", agent_trajectories_core::vocabulary::vocabulary());
}
