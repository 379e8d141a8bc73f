//! The import cycles of a graph of modules: its strongly connected groups of two or more.

use std::collections::{BTreeMap, BTreeSet};

use crate::Imports;

/// Every group of two or more modules that import each other, directly or around a loop
/// (Tarjan's strongly connected components), each sorted.
pub fn cycles(graph: &Imports) -> Vec<Vec<String>> {
    let mut state = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            state.visit(node);
        }
    }
    state.found
}

struct Tarjan<'g> {
    graph: &'g Imports,
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    on_stack: BTreeSet<&'g str>,
    found: Vec<Vec<String>>,
}

impl<'g> Tarjan<'g> {
    fn visit(&mut self, node: &'g str) {
        let number = self.index.len();
        self.index.insert(node, number);
        self.low.insert(node, number);
        self.stack.push(node);
        self.on_stack.insert(node);
        for next in self.graph.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !self.index.contains_key(next) {
                self.visit(next);
                let lowest = self.low[node].min(self.low[next]);
                self.low.insert(node, lowest);
            } else if self.on_stack.contains(next) {
                let lowest = self.low[node].min(self.index[next]);
                self.low.insert(node, lowest);
            }
        }
        if self.low[node] == self.index[node] {
            let mut group = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack.remove(member);
                group.push(member.to_owned());
                if member == node {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                self.found.push(group);
            }
        }
    }
}
