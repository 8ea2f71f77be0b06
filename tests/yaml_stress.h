/*
 * The hostile YAML inputs the bounds of src/yaml_limits.c are about, written
 * by one generator for the test that asserts the bounds
 * (tests/test_yaml_limits.c) and the benchmark that times them
 * (benchmarks/yaml_bench.c).  Each returns 0, or -1 when the file could not
 * be written.
 */
#ifndef OXPORT_TESTS_YAML_STRESS_H
#define OXPORT_TESTS_YAML_STRESS_H

/* "a: &a [e0, e1, ...]" with `n` entries named prefix<i>, then "b:" a list
 * of `n` aliases of a: n * n nodes for a reader that expands them. */
int yaml_stress_alias_bomb(const char *path, int n, const char *prefix);
/* `n` keys k0: 0, k1: 1, ... in one mapping. */
int yaml_stress_keys(const char *path, int n);
/* opset_9.yaml with `n` operators aten::op<i>; opset_10.yaml declaring
 * `n_new` more (aten::new<i>) and removing every other one of the first. */
int yaml_stress_descriptors(const char *opset9, const char *opset10, int n, int n_new);

#endif
