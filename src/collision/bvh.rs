//! A bounding-volume hierarchy (AABB tree) over the static objects: built once, queried
//! with a moving object's box in O(log n) without allocating.

use crate::spatial::Vec3;

#[derive(Clone, Debug, PartialEq)]
struct Node {
    lo: Vec3,
    hi: Vec3,
    /// Leaf: the item; inner node: usize::MAX.
    item: usize,
    /// Inner node: the second child (the first is the next node).
    right: usize,
}

/// AABB tree of items given by their boxes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    nodes: Vec<Node>,
}

#[inline]
fn overlaps(alo: &Vec3, ahi: &Vec3, blo: &Vec3, bhi: &Vec3) -> bool {
    // Non-short-circuit: one hard-to-predict branch instead of six.
    (alo.x <= bhi.x) & (blo.x <= ahi.x) & (alo.y <= bhi.y) & (blo.y <= ahi.y) & (alo.z <= bhi.z) & (blo.z <= ahi.z)
}

impl Bvh {
    /// A tree over `boxes[i] = (lo, hi)` for items `i`, split at the median of the longest
    /// axis of the centres.
    pub fn build(boxes: &[(Vec3, Vec3)]) -> Self {
        let mut items: Vec<usize> = (0..boxes.len()).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len());
        if !items.is_empty() {
            Self::split(boxes, &mut items, &mut nodes);
        }
        Self { nodes }
    }

    fn split(boxes: &[(Vec3, Vec3)], items: &mut [usize], nodes: &mut Vec<Node>) {
        let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
        for &i in items.iter() {
            lo = lo.inf(&boxes[i].0);
            hi = hi.sup(&boxes[i].1);
        }
        let at = nodes.len();
        if let [single] = items {
            nodes.push(Node { lo, hi, item: *single, right: 0 });
            return;
        }
        nodes.push(Node { lo, hi, item: usize::MAX, right: 0 });
        let centre = |i: usize| (boxes[i].0 + boxes[i].1) * 0.5;
        let extent = items.iter().fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(l, h), &i| {
            (l.inf(&centre(i)), h.sup(&centre(i)))
        });
        let axis = (extent.1 - extent.0).imax();
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |&a, &b| centre(a)[axis].total_cmp(&centre(b)[axis]));
        let (left, right) = items.split_at_mut(mid);
        Self::split(boxes, left, nodes);
        nodes[at].right = nodes.len();
        Self::split(boxes, right, nodes);
    }

    /// Calls `f` for every item whose box overlaps (lo, hi).
    pub fn query(&self, lo: &Vec3, hi: &Vec3, mut f: impl FnMut(usize)) {
        if self.nodes.is_empty() {
            return;
        }
        // Depth ≤ log2(items) + 1: 64 covers any realistic scene.
        let mut stack = [0usize; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let k = stack[top];
            let node = &self.nodes[k];
            if !overlaps(&node.lo, &node.hi, lo, hi) {
                continue;
            }
            if node.item != usize::MAX {
                f(node.item);
            } else if top + 2 <= stack.len() {
                stack[top] = k + 1;
                stack[top + 1] = node.right;
                top += 2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_find_exactly_the_overlapping_boxes() {
        let boxes: Vec<(Vec3, Vec3)> = (0..200)
            .map(|k| {
                let c = Vec3::new((k % 20) as f64, (k / 20) as f64, 0.0);
                (c - Vec3::repeat(0.3), c + Vec3::repeat(0.3))
            })
            .collect();
        let bvh = Bvh::build(&boxes);
        let (lo, hi) = (Vec3::new(2.5, 3.5, -1.0), Vec3::new(4.5, 4.5, 1.0));
        let mut found = Vec::new();
        bvh.query(&lo, &hi, |i| found.push(i));
        found.sort();
        let expected: Vec<usize> = (0..200).filter(|&k| overlaps(&boxes[k].0, &boxes[k].1, &lo, &hi)).collect();
        assert_eq!(found, expected);
        assert_eq!(found.len(), 2, "the boxes centred at (3, 4) and (4, 4)");
    }
}
