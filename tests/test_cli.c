/*
 * The oxport command line as a user runs it: the built binary (OXPORT_BIN,
 * set by tests/meson.build) on files made with onnx.helper and
 * torch.onnx.export through /usr/bin/python3.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oxport/oxport.h"
#include "test_util.h"

static char tmpdir[256];
static const char *bin;

typedef struct run_result {
    int status;  /* exit status, or -signal when killed */
    char *out;   /* stdout */
    char *err;   /* stderr */
} run_result;

/* A file that is not there reads as "". */
static char *slurp_or_empty(const char *path)
{
    char *text = slurp_text(path);
    return text ? text : strdup("");
}

/* Run `PREFIX oxport ARGS` (shell fragments) in tmpdir, capturing stdout and
 * stderr.  PREFIX sets the environment or limits: "ulimit -f 100; ". */
static run_result run_with(const char *prefix, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' %s >out 2>err", tmpdir, prefix, bin, args);
    int st = system(cmd);
    ck_assert_int_ne(st, -1);
    run_result r;
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -(WIFSIGNALED(st) ? WTERMSIG(st) : 999);
    char path[512];
    snprintf(path, sizeof path, "%s/out", tmpdir);
    r.out = slurp_or_empty(path);
    snprintf(path, sizeof path, "%s/err", tmpdir);
    r.err = slurp_or_empty(path);
    return r;
}

static run_result run(const char *args)
{
    return run_with("", args);
}

static void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
}

static int have_python_module(const char *module)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import %s' >/dev/null 2>&1", module);
    return system(cmd) == 0;
}

/* Run a python script (written to a file) inside tmpdir. */
static void python(const char *script)
{
    run_python_in(tmpdir, script);
}

static void setup(void)
{
    bin = getenv("OXPORT_BIN");
    ck_assert_msg(bin != NULL, "OXPORT_BIN is not set (run through meson test)");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/oxport-cli-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
    rm_rf(tmpdir);
}

/* ------------------------------------------------------ dispatch/help */

START_TEST(version)
{
    run_result r = run("--version");
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "oxport " OX_VERSION_STRING "\n");
    run_free(&r);
}
END_TEST

/* Output that cannot be written is a failure, whichever command printed it. */
START_TEST(unwritable_stdout_fails)
{
    const char *cmds[] = {"--version", "--help", "help dump", "export --list"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "'%s' %s >/dev/full 2>'%s/err'", bin, cmds[i], tmpdir);
        int st = system(cmd);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "%s: status %d", cmds[i], st);
        snprintf(cmd, sizeof cmd, "%s/err", tmpdir);
        char *err = slurp_or_empty(cmd);
        ck_assert_str_eq(err, "oxport: cannot write to standard output: No space left on device\n");
        free(err);
    }
}
END_TEST

START_TEST(top_level_help)
{
    const char *forms[] = {"--help", "-h", "help"};
    for (size_t i = 0; i < 3; i++) {
        run_result r = run(forms[i]);
        ck_assert_int_eq(r.status, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "usage: oxport <command>"));
        const char *cmds[] = {"export", "dump", "check", "ops", "plugins"};
        for (size_t j = 0; j < 5; j++) {
            char line[64];
            snprintf(line, sizeof line, "\n  %s ", cmds[j]);
            ck_assert_msg(strstr(r.out, line) != NULL, "%s does not list %s", forms[i], cmds[j]);
        }
        run_free(&r);
    }
}
END_TEST

static const char *subcommands[] = {"export", "dump", "check", "ops", "plugins"};

START_TEST(subcommand_help)
{
    const char *cmd = subcommands[_i];
    char args[128], want[128];
    snprintf(want, sizeof want, "usage: oxport %s", cmd);
    snprintf(args, sizeof args, "%s --help", cmd);
    run_result r = run(args);
    ck_assert_msg(r.status == 0, "oxport %s: exit %d\n%s", args, r.status, r.err);
    ck_assert_msg(strstr(r.out, want) != NULL, "oxport %s printed:\n%s", args, r.out);
    snprintf(args, sizeof args, "help %s", cmd);
    run_result h = run(args);
    ck_assert_int_eq(h.status, 0);
    ck_assert_str_eq(h.out, r.out);
    run_free(&r);
    run_free(&h);
}
END_TEST

START_TEST(unknown_command)
{
    run_result r = run("frobnicate");
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "oxport: unknown command 'frobnicate'\n"
                            "Run 'oxport --help' for the list of commands.\n");
    run_free(&r);

    r = run("dupm x.onnx");
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_eq(r.err, "oxport: unknown command 'dupm'; did you mean 'dump'?\n"
                            "Run 'oxport --help' for the list of commands.\n");
    run_free(&r);

    r = run("help frobnicate");
    ck_assert_int_eq(r.status, 2);
    run_free(&r);

    r = run("");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "usage: oxport"));
    run_free(&r);

    r = run("--frob");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "unknown option '--frob'"));
    run_free(&r);
}
END_TEST

START_TEST(usage_errors)
{
    run_result r = run("dump");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "oxport dump: missing FILE.onnx"));
    run_free(&r);
    r = run("dump --bogus x.onnx");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "oxport dump: unknown option '--bogus'"));
    run_free(&r);
    r = run("check");
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "oxport check: missing FILE.onnx"));
    run_free(&r);
}
END_TEST

/* ---------------------------------------------------------- dump/check */

static const char small_model[] =
    "import numpy as np, onnx\n"
    "from onnx import helper, TensorProto as T, numpy_helper\n"
    "w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), 'w')\n"
    "nodes = [helper.make_node('Gemm', ['x', 'w'], ['h'], transB=1, alpha=0.5, doc_string='Net/Linear[fc]'),\n"
    "         helper.make_node('Relu', ['h'], ['y'])]\n"
    "g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('x', T.FLOAT, ['batch', 4])],\n"
    "    [helper.make_tensor_value_info('y', T.FLOAT, ['batch', 3])], [w],\n"
    "    value_info=[helper.make_tensor_value_info('h', T.FLOAT, ['batch', 3])])\n"
    "m = helper.make_model(g, producer_name='cli-test', producer_version='1.0',\n"
    "    opset_imports=[helper.make_opsetid('', 13)])\n"
    "m.ir_version = 7\n"
    "onnx.checker.check_model(m, full_check=True)\n"
    "onnx.save(m, 'small.onnx')\n";

START_TEST(dump_small_file)
{
    python(small_model);
    run_result r = run("dump small.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    run_free(&r);
    char args[512];
    snprintf(args, sizeof args, "dump '%s/small.onnx'", tmpdir);
    r = run(args);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out,
        "ir_version=7 opsets=[ai.onnx:13] producer=cli-test 1.0 graph=g nodes=2 initializers=1 "
        "inputs=1 outputs=1\n"
        "graph(%x : Float(batch, 4)\n"
        "      %w : Float(3, 4)) {\n"
        "  %h : Float(batch, 3) = onnx::Gemm[alpha=0.5, transB=1](%x, %w), scope: Net/Linear[fc]\n"
        "  %y : Float(batch, 3) = onnx::Relu(%h)\n"
        "  return (%y);\n"
        "}\n");
    ck_assert_str_eq(r.err, "");
    run_free(&r);

    snprintf(args, sizeof args, "dump --no-header '%s/small.onnx'", tmpdir);
    r = run(args);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_eq(strstr(r.out, "graph(%x"), r.out); /* the graph comes first */
    run_free(&r);
}
END_TEST

START_TEST(check_clean_file)
{
    python(small_model);
    run_result r = run("check small.onnx");
    ck_assert_msg(r.status == 0, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_str_eq(r.out, "small.onnx: OK\n");
    run_free(&r);
}
END_TEST

START_TEST(check_broken_file)
{
    python(
        "import numpy as np, onnx\n"
        "from onnx import helper, TensorProto as T, numpy_helper\n"
        "w = numpy_helper.from_array(np.ones((2,), dtype=np.float32), 'w')\n"
        "nodes = [helper.make_node('Add', ['x', 'ghost'], ['y'])]\n"
        "g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('x', T.FLOAT, [2])],\n"
        "    [helper.make_tensor_value_info('y', T.FLOAT, [2])], [w, w])\n"
        "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
        "m.ir_version = 7\n"
        "onnx.save(m, 'broken.onnx')\n");
    const char *prefix = "broken.onnx: ";
    run_result r;
    r = run("check broken.onnx");
    ck_assert_msg(r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    /* Every line names the file; one mentions the undefined input, one the
     * duplicate initializer; the last is the count. */
    int lines = 0, ghost = 0, dup = 0;
    char *last = NULL;
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        ck_assert_msg(strncmp(line, prefix, strlen(prefix)) == 0, "line without file name: %s", line);
        if (strstr(line, "'ghost'") || strstr(line, "\"ghost\""))
            ghost = 1;
        if ((strstr(line, "duplicate") || strstr(line, "more than once")) &&
            (strstr(line, "'w'") || strstr(line, "\"w\"")))
            dup = 1;
        last = line;
    }
    ck_assert_msg(ghost, "no violation names the undefined input 'ghost'");
    ck_assert_msg(dup, "no violation names the duplicate initializer 'w'");
    ck_assert_ptr_nonnull(last);
    size_t n = 0;
    ck_assert_msg(sscanf(last + strlen(prefix), "%zu violations", &n) == 1 && n >= 2,
                  "last line is not the count: %s", last);
    ck_assert_int_eq((int)n, lines - 1);
    run_free(&r);
}
END_TEST

/* Complex tensors are ONNX tensors: dump lists them (text and JSON), check
 * reads them and, as onnx.checker does, refuses them where an operator's
 * type constraint has no complex type. */
START_TEST(dump_and_check_complex_tensors)
{
    python(
        "import numpy as np, onnx\n"
        "from onnx import helper, TensorProto as T, numpy_helper\n"
        "c = helper.make_tensor('c', T.COMPLEX64, [2], [1+2j, 3-4j])\n"
        "d = numpy_helper.from_array(np.array([[0.5-1j], [2+0j]], np.complex128), 'd')\n"
        "k = helper.make_tensor('k', T.COMPLEX128, [1], [-1.5+0.25j])\n"
        "nodes = [helper.make_node('Constant', [], ['kv'], value=k),\n"
        "         helper.make_node('Identity', ['c'], ['y']), helper.make_node('Identity', ['d'], ['z'])]\n"
        "g = helper.make_graph(nodes, 'cplx', [helper.make_tensor_value_info('x', T.COMPLEX64, [2])],\n"
        "    [helper.make_tensor_value_info('y', T.COMPLEX64, [2]),\n"
        "     helper.make_tensor_value_info('z', T.COMPLEX128, [2, 1])], [c, d])\n"
        "m = helper.make_model(g, producer_name='t', opset_imports=[helper.make_opsetid('', 13)])\n"
        "m.ir_version = 7\n"
        "onnx.checker.check_model(m, full_check=True)\n"
        "onnx.save(m, 'complex.onnx')\n"
        "m.graph.node.append(helper.make_node('Add', ['x', 'c'], ['s']))\n"
        "m.graph.output.append(helper.make_tensor_value_info('s', T.COMPLEX64, [2]))\n"
        "onnx.save(m, 'complex_add.onnx')\n");
    run_result r = run("dump complex.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out,
        "ir_version=7 opsets=[ai.onnx:13] producer=t graph=cplx nodes=3 initializers=2 inputs=1 "
        "outputs=2\n"
        "graph(%x : ComplexFloat(2)\n"
        "      %c : ComplexFloat(2)\n"
        "      %d : ComplexDouble(2, 1)) {\n"
        "  %kv : Tensor = onnx::Constant[value={-1.5+0.25j}]()\n"
        "  %y : ComplexFloat(2) = onnx::Identity(%c)\n"
        "  %z : ComplexDouble(2, 1) = onnx::Identity(%d)\n"
        "  return (%y, %z);\n"
        "}\n");
    run_free(&r);
    r = run("dump --format json complex.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"name\":\"x\",\"type\":{\"dtype\":\"complex64\""));
    ck_assert_ptr_nonnull(strstr(r.out, "{\"dtype\":\"complex128\",\"shape\":[1],\"nbytes\":16}"));
    run_free(&r);
    r = run("check complex.onnx");
    ck_assert_msg(r.status == 0, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_str_eq(r.out, "complex.onnx: OK\n");
    run_free(&r);
    r = run("check complex_add.onnx");
    ck_assert_msg(r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "complex_add.onnx: node #3 (Add): input 0 (A) of Add is "
                                        "complex64, which type constraint T does not allow"));
    run_free(&r);
}
END_TEST

/* Files with sparse initializers: sparse.onnx (emb with 3 values, one with
 * 1), unsorted.onnx (emb's indices out of order) and sparse_b.onnx (emb with
 * 2 values, two instead of one).  emb is read by a node of a custom domain:
 * no ai.onnx operator takes a sparse tensor, and check refuses one fed to
 * Identity as onnx.checker's full check does. */
static const char SPARSE_MODELS_PY[] =
    "import numpy as np, onnx\n"
    "from onnx import helper, TensorProto as T\n"
    "def sp(name, vals, idx):\n"
    "    return helper.make_sparse_tensor(helper.make_tensor(name, T.FLOAT, [len(vals)], vals),\n"
    "        helper.make_tensor('', T.INT64, [len(idx)], idx), [3, 4])\n"
    "w = helper.make_tensor('w', T.FLOAT, [1], [0.5])\n"
    "def model(sparse):\n"
    "    nodes = [helper.make_node('Identity', ['emb'], ['e'], domain='sparse.ops'), helper.make_node('Identity', ['w'], ['z'])]\n"
    "    g = helper.make_graph(nodes, 'g', [], [helper.make_sparse_tensor_value_info('e', T.FLOAT, [3, 4]),\n"
    "        helper.make_tensor_value_info('z', T.FLOAT, [1])], [w], sparse_initializer=sparse)\n"
    "    m = helper.make_model(g, producer_name='t', opset_imports=[helper.make_opsetid('', 13),\n"
    "        helper.make_opsetid('sparse.ops', 1)])\n"
    "    m.ir_version = 7\n"
    "    return m\n"
    "m = model([sp('emb', [1., 2., 3.], [0, 5, 11]), sp('one', [9.], [4])])\n"
    "onnx.checker.check_model(m)\n"
    "onnx.save(m, 'sparse.onnx')\n"
    "onnx.save(model([sp('emb', [1., 2.], [5, 3])]), 'unsorted.onnx')\n"
    "onnx.save(model([sp('emb', [1., 2.], [0, 5]), sp('two', [9.], [4])]), 'sparse_b.onnx')\n";

/* Sparse initializers: dump lists them after the dense ones, with their
 * shape and NNZ, and counts them in the header (text and JSON); check holds
 * them to onnx.checker's rules. */
START_TEST(dump_and_check_sparse_initializers)
{
    python(SPARSE_MODELS_PY);
    run_result r = run("dump sparse.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out,
        "ir_version=7 opsets=[ai.onnx:13, sparse.ops:1] producer=t graph=g nodes=2 "
        "initializers=1 inputs=0 outputs=2 sparse_initializers=2\n"
        "graph(%w : Float(1)\n"
        "      %emb : SparseTensor(Float(3, 4), 3 values)\n"
        "      %one : SparseTensor(Float(3, 4), 1 value)) {\n"
        "  %e : SparseTensor(Float(3, 4)) = sparse.ops::Identity(%emb)\n"
        "  %z : Float(1) = onnx::Identity(%w)\n"
        "  return (%e, %z);\n"
        "}\n");
    run_free(&r);
    r = run("dump --format json sparse.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"sparse_initializers\":[{\"name\":\"emb\",\"dtype\":"
                                        "\"float32\",\"shape\":[3,4],\"nnz\":3},{\"name\":\"one\","
                                        "\"dtype\":\"float32\",\"shape\":[3,4],\"nnz\":1}]"));
    run_free(&r);
    r = run("check sparse.onnx");
    ck_assert_msg(r.status == 0, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_str_eq(r.out, "sparse.onnx: OK\n");
    run_free(&r);
    r = run("check unsorted.onnx");
    ck_assert_msg(r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_str_eq(r.out, "unsorted.onnx: sparse initializer 'emb': index 1 is 3, not above "
                            "index 0 (5); ONNX requires ascending indices, none repeated\n"
                            "unsorted.onnx: 1 violation\n");
    run_free(&r);
}
END_TEST

/* diff compares sparse initializers with the dense ones, by name: a changed
 * count of values is a type difference, and one only in one file is listed;
 * the A/B lines count them as dump's header does. */
START_TEST(diff_compares_sparse_initializers)
{
    python(SPARSE_MODELS_PY);
    run_result r = run("diff sparse.onnx sparse.onnx");
    ck_assert_msg(r.status == 0, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "A sparse.onnx: producer=t opsets=[ai.onnx:13, sparse.ops:1] "
                                        "nodes=2 initializers=1 sparse_initializers=2\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "initializers:\n  = 3, same names and types\n"));
    run_free(&r);
    r = run("diff sparse.onnx sparse_b.onnx");
    ck_assert_msg(r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out,
        "initializers:\n"
        "  ! emb: A SparseTensor(Float(3, 4), 3 values), B SparseTensor(Float(3, 4), 2 values)\n"
        "  ! only in A: one : SparseTensor(Float(3, 4), 1 value)\n"
        "  ! only in B: two : SparseTensor(Float(3, 4), 1 value)\n"
        "  (3 in A, 3 in B, 2 of them in both)\n"));
    ck_assert_ptr_nonnull(strstr(r.out, "structure: 3 differences\n"));
    run_free(&r);
    r = run("diff --format json sparse.onnx sparse_b.onnx");
    ck_assert_msg(r.status == 1, "exit %d\n%s%s", r.status, r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"nodes\":2,\"initializers\":1,\"sparse_initializers\":2}"));
    ck_assert_ptr_nonnull(strstr(r.out, "{\"what\":\"only in B\",\"name\":\"two\""));
    run_free(&r);
}
END_TEST

/* A file's strings in the one-line summaries (dump's header, diff's A/B
 * lines) are escaped, so a newline or a terminal escape in producer_name,
 * producer_version, the graph name or a domain keeps each one line; JSON
 * escapes them too. */
START_TEST(summary_lines_escape_control_characters)
{
    python(
        "import onnx\n"
        "from onnx import helper, TensorProto as T\n"
        "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'g\\nname',\n"
        "    [helper.make_tensor_value_info('x', T.FLOAT, [1])], [helper.make_tensor_value_info('y', T.FLOAT, [1])])\n"
        "m = helper.make_model(g, producer_name='evil\\nproducer\\x1b[31m',\n"
        "    producer_version='1.0\\r\\t\\\\\\x7f\\u009b', opset_imports=[helper.make_opsetid('', 13),\n"
        "    helper.make_opsetid('my\\ndomain', 1)])\n"
        "onnx.save(m, 'ctl.onnx')\n");
    static const char header[] =
        "ir_version=8 opsets=[ai.onnx:13, my\\ndomain:1] producer=evil\\nproducer\\x1b[31m "
        "1.0\\x0d\\x09\\\\\\x7f\\xc2\\x9b graph=g\\nname nodes=1 initializers=0 inputs=1 outputs=1\n";
    run_result r = run("dump ctl.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strncmp(r.out, header, strlen(header)) == 0, "header:\n%s", r.out);
    ck_assert_str_eq(r.out + strlen(header), "graph(%x : Float(1)) {\n"
                                             "  %y : Float(1) = onnx::Relu(%x)\n"
                                             "  return (%y);\n"
                                             "}\n");
    run_free(&r);
    r = run("dump --format json ctl.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "\"producer_name\":\"evil\\nproducer\\u001b[31m\","
                                        "\"producer_version\":\"1.0\\r\\t\\\\\\u007f\\u009b\""));
    ck_assert_ptr_nonnull(strstr(r.out, "{\"domain\":\"my\\ndomain\",\"version\":1}"));
    ck_assert_ptr_nonnull(strstr(r.out, "\"graph\":{\"name\":\"g\\nname\""));
    /* one line: the document, then its newline */
    ck_assert_ptr_eq(strchr(r.out, '\n'), r.out + strlen(r.out) - 1);
    run_free(&r);
    r = run("diff ctl.onnx ctl.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_ptr_eq(strstr(r.out, "A ctl.onnx: producer=evil\\nproducer\\x1b[31m "
                                   "1.0\\x0d\\x09\\\\\\x7f\\xc2\\x9b opsets=[ai.onnx:13, "
                                   "my\\ndomain:1] nodes=1 initializers=0\n"), r.out);
    run_free(&r);
}
END_TEST

/* The listing escapes the file's names the same way: one node per line, no
 * control sequence for the terminal, whatever a name, a dim_param or a
 * scope holds. */
START_TEST(dump_listing_escapes_names)
{
    python(
        "import onnx\n"
        "from onnx import helper, TensorProto as T\n"
        "n = helper.make_node('Relu', ['x\\ny'], ['out\\x1b[2J'], doc_string='M/\\x1b[31mRelu\\\\x\\nline 2')\n"
        "g = helper.make_graph([n], 'g', [helper.make_tensor_value_info('x\\ny', T.FLOAT, ['b\\x07', 2])],\n"
        "    [helper.make_tensor_value_info('out\\x1b[2J', T.FLOAT, ['b\\x07', 2])])\n"
        "m = helper.make_model(g, producer_name='t', opset_imports=[helper.make_opsetid('', 13)])\n"
        "m.ir_version = 7\n"
        "onnx.save(m, 'names.onnx')\n");
    run_result r = run("dump --no-header names.onnx");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.out,
        "graph(%x\\ny : Float(b\\x07, 2)) {\n"
        "  %out\\x1b[2J : Float(b\\x07, 2) = onnx::Relu(%x\\ny), scope: M/\\x1b[31mRelu\\\\x\n"
        "  return (%out\\x1b[2J);\n"
        "}\n");
    run_free(&r);
}
END_TEST

/* Unreadable input: message and exit 2, never a crash. */
START_TEST(unreadable_files_exit_2)
{
    python(small_model);
    python(
        "import random\n"
        "data = open('small.onnx', 'rb').read()\n"
        "rng = random.Random(1234)\n"
        "for i, cut in enumerate([1, 7, len(data) // 3, len(data) // 2, len(data) - 5]):\n"
        "    open('trunc%d.onnx' % i, 'wb').write(data[:cut])\n"
        "for i in range(5):\n"
        "    open('random%d.onnx' % i, 'wb').write(bytes(rng.randrange(256) for _ in range(64 + 97 * i)))\n"
        "open('empty.onnx', 'wb').close()\n"
        "open('text.onnx', 'w').write('this is not a protobuf\\n')\n");
    const char *files[] = {"trunc0", "trunc1", "trunc2", "trunc3", "trunc4", "random0",
                           "random1", "random2", "random3", "random4", "text", "missing"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char args[512];
        snprintf(args, sizeof args, "dump '%s/%s.onnx'", tmpdir, files[i]);
        run_result r = run(args);
        ck_assert_msg(r.status == 2, "dump %s: exit %d\n%s", files[i], r.status, r.err);
        ck_assert_msg(strncmp(r.err, "oxport dump: ", 13) == 0 && strlen(r.err) > 20,
                      "dump %s: no message: %s", files[i], r.err);
        run_free(&r);
        snprintf(args, sizeof args, "check '%s/%s.onnx'", tmpdir, files[i]);
        r = run(args);
        ck_assert_msg(r.status == 2, "check %s: exit %d\n%s", files[i], r.status, r.err);
        ck_assert_msg(strstr(r.out, ": unreadable: ") != NULL, "check %s: %s", files[i], r.out);
        run_free(&r);
    }
    /* An empty file is a valid (empty) ModelProto encoding; whatever the
     * reader decides, the CLI must answer without crashing. */
    char args[512];
    snprintf(args, sizeof args, "dump '%s/empty.onnx'", tmpdir);
    run_result r = run(args);
    ck_assert_msg(r.status == 0 || r.status == 2, "dump empty: exit %d", r.status);
    run_free(&r);
}
END_TEST

/* A file torch.onnx.export wrote: the seed's format, Conv lines and all. */
START_TEST(dump_torch_resnet18)
{
    if (!have_python_module("torchvision")) {
        fprintf(stderr, "dump_torch_resnet18: skipped, torch/torchvision not importable by /usr/bin/python3\n");
        return;
    }
    python(
        "import torch, torchvision\n"
        "torch.manual_seed(0)\n"
        "m = torchvision.models.resnet18().eval()\n"
        "x = torch.randn(1, 3, 224, 224)\n"
        "torch.onnx.export(m, x, 'resnet18.onnx', opset_version=13,\n"
        "                  input_names=['actual_input_1'], output_names=['output1'])\n");
    char args[512];
    snprintf(args, sizeof args, "dump '%s/resnet18.onnx'", tmpdir);
    run_result r = run(args);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strncmp(r.out, "ir_version=7 opsets=[ai.onnx:13] producer=pytorch 1.13", 54) == 0,
                  "header: %.200s", r.out);
    ck_assert_ptr_nonnull(strstr(r.out, "\ngraph(%actual_input_1 : Float(1, 3, 224, 224)\n"));
    ck_assert_ptr_nonnull(strstr(r.out,
        " = onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[7, 7], pads=[3, 3, 3, 3], "
        "strides=[2, 2]](%actual_input_1, "));
    ck_assert_ptr_nonnull(strstr(r.out, " = onnx::Gemm[alpha=1, beta=1, transB=1]("));
    ck_assert_ptr_nonnull(strstr(r.out, "  return (%output1);\n}\n"));
    /* 20 convolutions, and every body line is a node, the return or the brace. */
    int convs = 0;
    char *body = strstr(r.out, ") {\n");
    ck_assert_ptr_nonnull(body);
    for (char *line = strtok(body + 4, "\n"); line; line = strtok(NULL, "\n")) {
        ck_assert_msg(strncmp(line, "  %", 3) == 0 || strncmp(line, "  return (", 10) == 0 ||
                      strcmp(line, "}") == 0, "stray line: %s", line);
        if (strstr(line, " = onnx::Conv["))
            convs++;
    }
    ck_assert_int_eq(convs, 20);
    run_free(&r);

    snprintf(args, sizeof args, "check '%s/resnet18.onnx'", tmpdir);
    r = run(args);
    ck_assert_msg(r.status == 0, "check of torch's file: exit %d\n%s%s", r.status, r.out, r.err);
    run_free(&r);
}
END_TEST

/* oxport's own output: what `export --verbose` shows is what `dump` reads
 * back from the file, and the file passes `check`. */
START_TEST(export_verbose_equals_dump)
{
    const char *build = getenv("OXPORT_TEST_BUILDDIR");
    ck_assert_ptr_nonnull(build);
    char aten[1024], fn[1024], args[4096];
    snprintf(aten, sizeof aten, "%s/plugins/aten", build);
    snprintf(fn, sizeof fn, "%s/plugins/nn_functions", build);
    if (access(aten, F_OK) != 0) {
        fprintf(stderr, "export_verbose_equals_dump: skipped, %s not built\n", aten);
        return;
    }
    snprintf(args, sizeof args,
             "export superresolution -o sr.onnx --verbose --plugin-path '%s' --plugin-path '%s'",
             aten, fn);
    run_result e = run(args);
    ck_assert_msg(e.status == 0, "export: exit %d\n%s", e.status, e.err);
    ck_assert_ptr_nonnull(strstr(e.out, " = onnx::Conv[dilations=[1, 1], group=1, kernel_shape=[3, 3], "
                                        "pads=[1, 1, 1, 1], strides=[1, 1]]("));
    ck_assert_ptr_nonnull(strstr(e.out, ", scope: SuperResolutionNet/Conv2d[conv1]\n"));
    run_result d = run("dump --no-header sr.onnx");
    ck_assert_msg(d.status == 0, "dump: exit %d\n%s", d.status, d.err);
    ck_assert_str_eq(d.out, e.out);
    run_result c = run("check sr.onnx");
    ck_assert_msg(c.status == 0, "check: exit %d\n%s", c.status, c.out);
    ck_assert_str_eq(c.out, "sr.onnx: OK\n");
    run_free(&e);
    run_free(&d);
    run_free(&c);
}
END_TEST

/* ------------------------------------------------------ export errors */

/* "--plugin-path aten --plugin-path nn_functions" of this build; false when
 * the packs are not built. */
static int pack_args(char *buf, size_t cap)
{
    const char *build = getenv("OXPORT_TEST_BUILDDIR");
    ck_assert_ptr_nonnull(build);
    char aten[1024];
    snprintf(aten, sizeof aten, "%s/plugins/aten", build);
    if (access(aten, F_OK) != 0) {
        fprintf(stderr, "export error tests: skipped, %s not built\n", aten);
        return 0;
    }
    snprintf(buf, cap, "--plugin-path '%s' --plugin-path '%s/plugins/nn_functions'", aten, build);
    return 1;
}

/* Files in tmpdir/sub (tmpdir when sub is "") other than the captured
 * out/err and the given fixtures: what a failed export left behind. */
static char *leftovers(const char *sub, const char *fixtures)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s/%s' && ls -A | grep -Fvx -e out -e err -e left %s > '%s/left'; true", tmpdir,
             sub, fixtures, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/left", tmpdir);
    return slurp_or_empty(cmd);
}

static void write_text(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Exit status and the whole of stderr of `oxport export superresolution ARGS`. */
/* `oxport ARGS` exits with status and says exactly err on stderr. */
static void expect_run(const char *args, int status, const char *err)
{
    run_result r = run(args);
    ck_assert_msg(r.status == status, "%s: exit %d, want %d\n%s", args, r.status, status, r.err);
    ck_assert_str_eq(r.err, err);
    run_free(&r);
}

static void expect_export(const char *prefix, const char *args, int status, const char *err)
{
    char packs[2200], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    snprintf(all, sizeof all, "export superresolution %s %s", packs, args);
    run_result r = run_with(prefix, all);
    ck_assert_msg(r.status == status, "%s: exit %d, want %d\n%s", args, r.status, status, r.err);
    ck_assert_str_eq(r.err, err);
    run_free(&r);
}

START_TEST(export_write_failures)
{
    char packs[2200];
    if (!pack_args(packs, sizeof packs))
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir '%s/adir'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    expect_export("", "-o adir", 3,
                  "oxport export: superresolution: cannot write ONNX model to 'adir': it is a "
                  "directory; give a file path such as 'adir/model.onnx'\n");
    expect_export("", "-o ''", 2, "oxport export: -o needs a path, got an empty one\n");
    expect_export("", "-o /dev/full/x.onnx", 3,
                  "oxport export: superresolution: cannot write ONNX model to '/dev/full/x.onnx': "
                  "cannot create a file in directory '/dev/full': Not a directory; check the "
                  "path\n");
    expect_export("", "-o /proc/self/m.onnx", 3,
                  "oxport export: superresolution: cannot write ONNX model to '/proc/self/m.onnx': "
                  "cannot create a file in directory '/proc/self': No such file or directory; its "
                  "file system does not make new files; write elsewhere\n");
    expect_export("", "-o nodir/m.onnx", 3,
                  "oxport export: superresolution: cannot write ONNX model to 'nodir/m.onnx': "
                  "cannot create a file in directory 'nodir': No such file or directory; create "
                  "the directory first\n");
    /* a full device; root writes to its own copy of /dev/full so that a
     * regression cannot replace the real node */
    const char *full = "/dev/full";
    if (geteuid() == 0) {
        snprintf(cmd, sizeof cmd, "mknod '%s/full' c 1 7", tmpdir);
        ck_assert_int_eq(system(cmd), 0);
        full = "full";
    }
    char args[256], want[1024];
    snprintf(args, sizeof args, "-o %s", full);
    snprintf(want, sizeof want, "oxport export: superresolution: cannot write ONNX model to '%s': "
             "No space left on device; free space on the device or write elsewhere\n", full);
    expect_export("", args, 3, want);
    snprintf(cmd, sizeof cmd, "test -c '%s' || test -c '%s/%s'", full, tmpdir, full);
    ck_assert_msg(system(cmd) == 0, "%s is no longer a character device", full);
    /* a file size limit: EFBIG midway, not a SIGXFSZ that leaves the temp */
    expect_export("ulimit -f 100;", "-o lim.onnx", 3,
                  "oxport export: superresolution: cannot write ONNX model to 'lim.onnx': File "
                  "too large; raise the file size limit (ulimit -f) or write elsewhere\n");
    if (geteuid() != 0) {
        snprintf(cmd, sizeof cmd, "mkdir -m 555 '%s/ro'", tmpdir);
        ck_assert_int_eq(system(cmd), 0);
        expect_export("", "-o ro/m.onnx", 3,
                      "oxport export: superresolution: cannot write ONNX model to 'ro/m.onnx': "
                      "cannot create a file in directory 'ro': Permission denied; choose a "
                      "directory you can write to\n");
    }
    char *left = leftovers("", "-e adir -e full -e ro");
    ck_assert_str_eq(left, "");
    free(left);
}
END_TEST

/* The report and a picture are checked before any work: a report that would
 * replace the model or has no directory to go to, and a picture over the
 * model it draws, are usage errors that write nothing.  They go through
 * links and into FIFOs as the model does. */
START_TEST(report_and_picture_paths_checked_first)
{
    char packs[2200];
    if (!pack_args(packs, sizeof packs))
        return;
    expect_export("", "-o m.json --report m.json", 2,
                  "oxport export: -o and --report name the same file 'm.json'; the report would "
                  "replace the model\n");
    expect_export("", "-o m.onnx --report nodir/r.json", 2,
                  "oxport export: cannot write the report nodir/r.json: directory 'nodir' does "
                  "not exist; create it first\n");
    char *left = leftovers("", "");
    ck_assert_str_eq(left, "");
    free(left);

    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && ln -s real.json link.json && mkfifo pipe.svg", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    expect_export("", "-o m.onnx --report link.json", 0, "");
    expect_export("", "-o m.onnx --report R.JSON", 0, ""); /* the extension's case aside */
    snprintf(cmd, sizeof cmd, "cd '%s' && test -L link.json && test -s real.json", tmpdir);
    ck_assert_msg(system(cmd) == 0, "the report did not go through the link");

    expect_run("dump m.onnx --format dot -o m.onnx", 2,
               "oxport dump: -o 'm.onnx' is the model being read; the picture would replace it\n");
    /* a FIFO nobody reads is refused at once and stays a FIFO */
    expect_run("dump m.onnx --format dot -o pipe.svg", 3,
               "oxport dump: pipe.svg: cannot move the picture into place: No such device or "
               "address\n");
    left = leftovers("", "-e m.onnx -e link.json -e real.json -e pipe.svg -e R.JSON");
    ck_assert_str_eq(left, "");
    free(left);
    snprintf(cmd, sizeof cmd, "cd '%s' && test -p pipe.svg", tmpdir);
    ck_assert_msg(system(cmd) == 0, "pipe.svg is no longer a FIFO");
}
END_TEST

/* A real full file system and a read-only one: tmpfs mounts, root only. */
START_TEST(export_tiny_and_readonly_tmpfs)
{
    char packs[2200], cmd[1024], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    snprintf(cmd, sizeof cmd, "mkdir '%s/tiny' && mount -t tmpfs -o size=64k oxport-test '%s/tiny' "
             "2>/dev/null", tmpdir, tmpdir);
    if (geteuid() != 0 || system(cmd) != 0) {
        fprintf(stderr, "export_tiny_and_readonly_tmpfs: skipped (needs root to mount tmpfs)\n");
        return;
    }
    /* unmount before asserting: a failed check must not leave the mount */
    snprintf(all, sizeof all, "export superresolution %s -o tiny/m.onnx", packs);
    run_result full = run(all);
    char *left_full = leftovers("tiny", "");
    snprintf(cmd, sizeof cmd, "mount -o remount,ro '%s/tiny'", tmpdir);
    int remounted = system(cmd);
    run_result ro = run(all);
    char *left_ro = leftovers("tiny", "");
    snprintf(cmd, sizeof cmd, "umount '%s/tiny'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);

    ck_assert_int_eq(full.status, 3);
    ck_assert_str_eq(full.err, "oxport export: superresolution: cannot write ONNX model to "
                     "'tiny/m.onnx': No space left on device; free space on the device or write "
                     "elsewhere\n");
    ck_assert_str_eq(left_full, "");
    ck_assert_int_eq(remounted, 0);
    ck_assert_int_eq(ro.status, 3);
    ck_assert_str_eq(ro.err, "oxport export: superresolution: cannot write ONNX model to "
                     "'tiny/m.onnx': cannot create a file in directory 'tiny': Read-only file "
                     "system; choose a directory you can write to\n");
    ck_assert_str_eq(left_ro, "");
    free(left_full);
    free(left_ro);
    run_free(&full);
    run_free(&ro);
}
END_TEST

/* Name lists: an empty name is an error, not a name skipped (",a" named
 * input 0 'a'); a function type that names no module is a warning. */
START_TEST(export_name_lists)
{
    expect_export("", "-o m.onnx --input-names ,a", 2,
                  "oxport export: --input-names: name 1 is empty; give a comma-separated list of "
                  "names such as 'a,b'\n");
    expect_export("", "-o m.onnx --output-names 'y,'", 2,
                  "oxport export: --output-names: name 2 is empty; give a comma-separated list of "
                  "names such as 'a,b'\n");
    /* a decoder too long to run eagerly on any machine is refused before it runs */
    char packs[2200], all[4096];
    if (pack_args(packs, sizeof packs)) {
        snprintf(all, sizeof all, "export decoder %s -o m.onnx --decoder-config seq=1000000", packs);
        run_result r = run(all);
        ck_assert_int_eq(r.status, 2);
        ck_assert_msg(strstr(r.err, "the forward at seq=1000000 keeps about") &&
                      strstr(r.err, "lower seq, or trace without computing (--shape-only)"),
                      "%s", r.err);
        run_free(&r);
    }
    expect_export("", "-o m.onnx --opset 15 --functions NoSuchType", 0,
                  "oxport export: superresolution: warning: function type 'NoSuchType' names no "
                  "module of the model (no scope segment 'NoSuchType[...]'), so no function was "
                  "made for it\n");
}
END_TEST

START_TEST(export_config_errors)
{
    expect_export("", "-o m.onnx --config missing.yaml", 2,
                  "oxport export: missing.yaml: cannot read: No such file or directory; check "
                  "the --config path\n");
    write_text("syntax.yaml", "target_opset: [13\n");
    expect_export("", "-o m.onnx --config syntax.yaml", 2,
                  "oxport export: syntax.yaml:2:1: expected valid YAML, got a syntax error: did "
                  "not find expected ',' or ']' (while parsing a flow sequence started at 1:15)\n");
    write_text("key.yaml", "opset: 13\n");
    expect_export("", "-o m.onnx --config key.yaml", 2,
                  "oxport export: key.yaml:1:1: expected one of the keys target_opset, opsets, "
                  "plugin_dirs, disabled_operators, custom_domains, opset_dir, "
                  "operator_export_type, sync, direct_io, got 'opset'\n");
    /* the config's opset_dir ranks above the build tree's descriptors */
    write_text("dir.yaml", "opset_dir: nowhere\n");
    expect_export("env -u OXPORT_OPSET_DIR", "-o m.onnx --config dir.yaml", 2,
                  "oxport export: loading symbolic packs and opsets failed:\nnowhere: cannot open "
                  "the opset descriptor directory: No such file or directory (set opset_dir in "
                  "the config, OXPORT_OPSET_DIR or ox_context_set_opset_dir)\n");
    char *left = leftovers("", "-e syntax.yaml -e key.yaml -e dir.yaml");
    ck_assert_str_eq(left, "");
    free(left);
}
END_TEST

START_TEST(export_plugin_path_errors)
{
    const char *build = getenv("OXPORT_TEST_BUILDDIR");
    char prefix[1200], want[2400];
    snprintf(prefix, sizeof prefix,
             "OXPORT_PLUGIN_PATH='%s/tests/fixtures/plugins/libfx_noentry.so'", build);
    snprintf(want, sizeof want, "oxport export: loading symbolic packs and opsets failed:\n"
             "plugin %s/tests/fixtures/plugins/libfx_noentry.so: no entry symbol "
             "'ox_plugin_entry' (is it an oxport symbolic pack?)\n"
             "fix or remove that path (--plugin-path, OXPORT_PLUGIN_PATH, plugin_dirs in the "
             "config); 'oxport plugins --check FILE.so' explains why a pack is rejected\n", build);
    expect_export(prefix, "-o m.onnx", 2, want);
    expect_export("OXPORT_PLUGIN_PATH=/nonexistent/oxport-plugins", "-o m.onnx", 2,
                  "oxport export: loading symbolic packs and opsets failed:\n"
                  "plugin path /nonexistent/oxport-plugins (from OXPORT_PLUGIN_PATH): No such "
                  "file or directory\n"
                  "fix or remove that path (--plugin-path, OXPORT_PLUGIN_PATH, plugin_dirs in the "
                  "config); 'oxport plugins --check FILE.so' explains why a pack is rejected\n");
    char *left = leftovers("", "");
    ck_assert_str_eq(left, "");
    free(left);
}
END_TEST

START_TEST(export_unsupported_and_opset_range)
{
    write_text("off.yaml", "disabled_operators: [aten::pixel_shuffle]\n");
    expect_export("", "-o m.onnx --config off.yaml", 1,
                  "oxport export: superresolution: Couldn't export operator(s): 1 problem(s) at "
                  "opset 13:\n"
                  "  - ONNX export failed on pixel_shuffle because aten::pixel_shuffle is disabled "
                  "by off.yaml (scope: SuperResolutionNet/PixelShuffle[pixel_shuffle])\n");
    expect_export("", "-o m.onnx --opset 99", 2,
                  "oxport export: --opset 99 is outside the enabled range 7..21 (set by the "
                  "opset descriptors); choose an opset from 7 to 21\n");
    expect_export("", "-o m.onnx --opset 6", 2,
                  "oxport export: --opset 6 is outside the enabled range 7..21 (set by the "
                  "opset descriptors); choose an opset from 7 to 21\n");
    write_text("range.yaml", "opsets: {min: 11, max: 13}\n");
    expect_export("", "-o m.onnx --opset 14 --config range.yaml", 2,
                  "oxport export: --opset 14 is outside the enabled range 11..13 (set by "
                  "range.yaml); choose an opset from 11 to 13\n");
    char *left = leftovers("", "-e off.yaml -e range.yaml");
    ck_assert_str_eq(left, "");
    free(left);
}
END_TEST

/* Killed while the model is being written (SIGTERM here; Ctrl-C's SIGINT
 * takes the same path, but a shell's background job ignores it): the process
 * dies of the signal and takes its hidden temp file with it. */
START_TEST(export_interrupted_leaves_nothing)
{
    char packs[2200], cmd[8192];
    if (!pack_args(packs, sizeof packs))
        return;
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { '%s' export alexnet %s -o a.onnx >out 2>err & p=$!; i=0; "
             "while [ $i -lt 6000 ]; do "
             "if ls -A | grep -q '^[.]a[.]onnx[.]oxtmp-'; then kill -TERM $p; : > seen; break; fi; "
             "i=$((i+1)); sleep 0.005; done; wait $p; echo $? > status; }",
             tmpdir, bin, packs);
    ck_assert_int_eq(system(cmd), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/status", tmpdir);
    char *status = slurp_or_empty(path);
    snprintf(path, sizeof path, "%s/seen", tmpdir);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "export_interrupted_leaves_nothing: inconclusive, the write ended before "
                "its temp file was seen (exit %s)", status);
        ck_assert_str_eq(status, "0\n");
        free(status);
        return;
    }
    ck_assert_str_eq(status, "143\n"); /* 128 + SIGTERM: died of the signal */
    char *left = leftovers("", "-e seen -e status");
    ck_assert_str_eq(left, "");
    free(left);
    free(status);
}
END_TEST

/* A bundle whose test data cannot be written loses its model and the model's
 * external data file (named by its content) too. */
START_TEST(export_test_data_failure_removes_the_pair)
{
    char packs[2200], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/bundle' && : > '%s/bundle/test_data_set_0'", tmpdir,
             tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(all, sizeof all, "export superresolution %s --test-data bundle --external-data",
             packs);
    run_result r = run(all);
    ck_assert_msg(r.status == 3, "exit %d\n%s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "cannot write bundle/test_data_set_0/input_0.pb") != NULL, "%s",
                  r.err);
    run_free(&r);
    char *left = leftovers("bundle", "-e test_data_set_0");
    ck_assert_str_eq(left, "");
    free(left);

    /* a directory the failed export made goes too */
    expect_export("ulimit -f 100;", "--test-data made", 3,
                  "oxport export: superresolution: cannot write ONNX model to 'made/model.onnx': "
                  "File too large; raise the file size limit (ulimit -f) or write elsewhere\n");
    snprintf(cmd, sizeof cmd, "test ! -e '%s/made'", tmpdir);
    ck_assert_msg(system(cmd) == 0, "the failed export left its directory");

    /* without its weights the bundle could not run */
    expect_export("", "--test-data nop --no-params", 2,
                  "oxport export: --test-data writes a bundle ONNX Runtime runs as it is; with "
                  "--no-params the weights would be inputs it has no data for: leave out "
                  "--no-params\n");

    /* tensors of an earlier bundle with more inputs are removed, other files stay */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/old/test_data_set_0' && cd '%s/old/test_data_set_0' && "
             ": > input_5.pb && : > output_3.pb && : > notes.txt", tmpdir, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    expect_export("", "--test-data old", 0, "");
    left = leftovers("old/test_data_set_0", "");
    ck_assert_str_eq(left, "input_0.pb\nnotes.txt\noutput_0.pb\n");
    free(left);
}
END_TEST

/* --sync fsyncs the model and its directory; without it nothing is fsync'd
 * (counted with strace, skipped where it is missing). */
/* `plugins --check` against descriptors the packs do not cover: every
 * finding, then the summary naming the descriptor directory. */
START_TEST(plugins_check_lists_the_findings)
{
    char fx[1024], opsets[1024], args[2048];
    snprintf(fx, sizeof fx, "%s/tests/fixtures/plugins", builddir());
    snprintf(opsets, sizeof opsets, "%s/tests/fixtures/plugins/opset", srcdir());
    snprintf(args, sizeof args, "plugins --check --plugin-path '%s/libfx_base.so'", fx);
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "OXPORT_NO_DEFAULT_PLUGINDIR=1 OXPORT_OPSET_DIR='%s'", opsets);
    run_result r = run_with(prefix, args);
    char want[8192];
    snprintf(want, sizeof want,
             "%s/opset_9.yaml: operator test::kinded is declared for opset 9, but no loaded pack "
             "provides a symbolic for it\n"
             "%s/opset_11.yaml: operator test::yamlonly is declared for opset 11, but no loaded "
             "pack provides a symbolic for it\n"
             "2 problem(s) in 1 pack(s) against %s\n",
             opsets, opsets, opsets);
    ck_assert_str_eq(r.out, want);
    ck_assert_str_eq(r.err, "");
    ck_assert_int_eq(r.status, 1);
    run_free(&r);
}
END_TEST

START_TEST(export_sync_flag)
{
    char packs[2200], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    if (system("strace -V >/dev/null 2>&1") != 0) {
        fprintf(stderr, "export_sync_flag: SKIPPED (no strace; tools/install-deps installs it)\n");
        return;
    }
    for (int sync = 0; sync < 2; sync++) {
        snprintf(all, sizeof all, "export superresolution %s -o s.onnx%s", packs,
                 sync ? " --sync" : "");
        /* LeakSanitizer cannot run under ptrace; the other suites check leaks */
        run_result r = run_with("ASAN_OPTIONS=detect_leaks=0 strace -f -qq "
                                "-e trace=fsync,fdatasync,sync_file_range -o trace.txt", all);
        ck_assert_msg(r.status == 0, "exit %d\n%s", r.status, r.err);
        run_free(&r);
        char path[512];
        snprintf(path, sizeof path, "%s/trace.txt", tmpdir);
        char *trace = slurp_or_empty(path);
        int n = 0;
        for (const char *p = trace; (p = strstr(p, "fsync(")); p++)
            n++;
        ck_assert_msg(n == (sync ? 2 : 0), "%s: %d fsync calls\n%s", sync ? "--sync" : "default",
                      n, trace);
        free(trace);
    }
}
END_TEST

/* --direct-io writes with O_DIRECT (the fcntl that turns it on, counted with
 * strace), --no-direct-io does not even with --sync, and --sync alone does;
 * the files are byte for byte the same.  The decoder runs shape-only from a
 * weights file, so its 13 MiB of weights come through the on-demand read path. */
START_TEST(export_direct_io_flags)
{
    char packs[2200], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    if (system("strace -V >/dev/null 2>&1") != 0) {
        fprintf(stderr, "export_direct_io_flags: SKIPPED (no strace; tools/install-deps installs it)\n");
        return;
    }
    const char *cfg = "--decoder-config layers=2,dim=256,hidden=512,heads=4,vocab=4096";
    snprintf(all, sizeof all, "export decoder %s %s --save-weights w.bin", packs, cfg);
    run_result w = run(all);
    ck_assert_msg(w.status == 0, "exit %d\n%s", w.status, w.err);
    run_free(&w);
    static const struct {
        const char *flags, *out;
        int direct;
    } cases[] = {{"--direct-io", "a.onnx", 1}, {"--no-direct-io --sync", "b.onnx", 0},
                 {"--sync", "c.onnx", 1}, {"", "d.onnx", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(all, sizeof all, "export decoder %s %s --shape-only --weights w.bin -o %s %s", packs,
                 cfg, cases[i].out, cases[i].flags);
        run_result r = run_with("ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=fcntl "
                                "-o trace.txt", all);
        ck_assert_msg(r.status == 0, "'%s': exit %d\n%s", cases[i].flags, r.status, r.err);
        run_free(&r);
        char path[512];
        snprintf(path, sizeof path, "%s/trace.txt", tmpdir);
        char *trace = slurp_or_empty(path);
        int on = strstr(trace, "F_SETFL") && strstr(trace, "|O_DIRECT");
        ck_assert_msg(on == (cases[i].direct != 0), "'%s': O_DIRECT %s\n%s", cases[i].flags,
                      on ? "set" : "not set", trace);
        free(trace);
    }
    snprintf(all, sizeof all, "cd '%s' && cmp a.onnx b.onnx && cmp a.onnx c.onnx && cmp a.onnx d.onnx",
             tmpdir);
    ck_assert_int_eq(system(all), 0);
}
END_TEST

/* dump and check read a model from a pipe; a device gets a clear refusal. */
START_TEST(dump_and_check_read_pipes)
{
    char packs[2200], all[4096];
    if (!pack_args(packs, sizeof packs))
        return;
    snprintf(all, sizeof all, "export superresolution %s -o sr.onnx", packs);
    run_result e = run(all);
    ck_assert_msg(e.status == 0, "export: exit %d\n%s", e.status, e.err);
    run_result c = run_with("cat sr.onnx |", "check /dev/stdin");
    ck_assert_msg(c.status == 0, "check: exit %d\n%s%s", c.status, c.out, c.err);
    ck_assert_str_eq(c.out, "/dev/stdin: OK\n");
    run_result d = run_with("cat sr.onnx |", "dump --no-header /dev/stdin");
    run_result f = run("dump --no-header sr.onnx");
    ck_assert_int_eq(d.status, 0);
    ck_assert_str_eq(d.out, f.out);
    run_result n = run("dump /dev/null");
    ck_assert_int_eq(n.status, 2);
    ck_assert_str_eq(n.err, "oxport dump: /dev/null: cannot read: not a regular file or a pipe; "
                     "give the path of an .onnx file\n");
    run_free(&e);
    run_free(&c);
    run_free(&d);
    run_free(&f);
    run_free(&n);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("dispatch");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, version);
    tcase_add_test(tc, top_level_help);
    tcase_add_test(tc, unwritable_stdout_fails);
    tcase_add_loop_test(tc, subcommand_help, 0, (int)(sizeof subcommands / sizeof subcommands[0]));
    tcase_add_test(tc, unknown_command);
    tcase_add_test(tc, usage_errors);
    suite_add_tcase(s, tc);

    TCase *files = tcase_create("files");
    tcase_add_checked_fixture(files, setup, teardown);
    tcase_set_timeout(files, 240);
    tcase_add_test(files, dump_small_file);
    tcase_add_test(files, check_clean_file);
    tcase_add_test(files, check_broken_file);
    tcase_add_test(files, unreadable_files_exit_2);
    tcase_add_test(files, dump_torch_resnet18);
    tcase_add_test(files, export_verbose_equals_dump);
    tcase_add_test(files, dump_and_check_complex_tensors);
    tcase_add_test(files, dump_and_check_sparse_initializers);
    tcase_add_test(files, diff_compares_sparse_initializers);
    tcase_add_test(files, summary_lines_escape_control_characters);
    tcase_add_test(files, dump_listing_escapes_names);
    suite_add_tcase(s, files);

    TCase *errors = tcase_create("export_errors");
    tcase_add_checked_fixture(errors, setup, teardown);
    tcase_set_timeout(errors, 240);
    tcase_add_test(errors, export_write_failures);
    tcase_add_test(errors, report_and_picture_paths_checked_first);
    tcase_add_test(errors, export_tiny_and_readonly_tmpfs);
    tcase_add_test(errors, export_config_errors);
    tcase_add_test(errors, export_name_lists);
    tcase_add_test(errors, export_plugin_path_errors);
    tcase_add_test(errors, export_unsupported_and_opset_range);
    tcase_add_test(errors, dump_and_check_read_pipes);
    tcase_add_test(errors, export_interrupted_leaves_nothing);
    tcase_add_test(errors, export_sync_flag);
    tcase_add_test(errors, export_direct_io_flags);
    tcase_add_test(errors, plugins_check_lists_the_findings);
    tcase_add_test(errors, export_test_data_failure_removes_the_pair);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    return run_suite(cli_suite());
}
