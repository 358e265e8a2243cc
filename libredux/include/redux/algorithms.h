/* libredux's algorithms: the trees it can plan, declared once, and the public enum made from them.
 *
 * No MPI here: the planner, the configuration parser and the tools include this header without <mpi.h>.
 *
 * REDUX_STRATEGIES(X) lists every tree strategy, one X(ENUM, name, "text", value, needs) each:
 *   ENUM    its enumerator is REDUX_ALGORITHM_<ENUM>
 *   name    its C++ name (redux::Strategy::name); its builder is redux::build_<name> (plan/builders.cpp)
 *   "text"  its name for people: REDUX_ALGORITHM, reports, redux-plan --strategy, mpi_bench --algorithms
 *   value   its redux_algorithm value, never reused
 *   needs   when it applies:
 *             always      any communicator, any op
 *             link_costs  calibrated per-link costs of several link classes (nodes, packages) or of
 *                         3 or more nodes measured pair by pair, and a commutative op; elsewhere the
 *                         library plans the optimal tree instead
 *             nodes       link_costs, on several nodes
 *             limit       a bound K (redux_options.limit, redux-plan --limit); not a REDUX_ALGORITHM value
 * auto weighs every strategy that applies and needs no limit. Adding a strategy: one line here, its builder,
 * its tests.
 */
#ifndef REDUX_ALGORITHMS_H
#define REDUX_ALGORITHMS_H

/* clang-format off */
#define REDUX_STRATEGIES(X)                                                                   \
    X(OPTIMAL,           optimal,           "optimal",           2,  always)     /* Algorithm 1 of Canon & Antoniu */ \
    X(FIBONACCI,         fibonacci,         "fibonacci",         3,  always)     /* Algorithm 1 with d = c */         \
    X(BINOMIAL,          binomial,          "binomial",          4,  always)     /* Algorithm 1 with min(d, c) = 0 */ \
    X(SNF,               snf,               "snf",               6,  link_costs) /* Slowest-Node-First, Liu & Wang */ \
    X(HETERO_GREEDY,     hetero_greedy,     "hetero-greedy",     7,  link_costs) /* Algorithm 1 on per-link costs */  \
    X(TWO_LEVEL,         two_level,         "two-level",         8,  nodes)      /* Algorithm 1 per node, then across */ \
    X(TRANSFERS_LIMITED, transfers_limited, "transfers-limited", 9,  limit)      /* Algorithm 2: <= K transfers */    \
    X(REDUCERS_LIMITED,  reducers_limited,  "reducers-limited",  10, limit)      /* Algorithm 3: <= K reducers */     \
    X(CHAIN,             chain,             "chain",             11, always)     /* linear pipeline */                \
    X(BINARY,            binary,            "binary",            12, always)     /* complete binary tree */           \
    X(KSSS,              ksss,              "ksss",              13, always)     /* LogP summation, Karp et al. */    \
    X(TWO_TREE,          two_tree,          "two-tree",          14, always)     /* two binary trees, Sanders et al. */ \
    X(MULTI_TREE,        multi_tree,        "multi-tree",        15, link_costs) /* weighted trees, Legrand et al. */
/* clang-format on */

/* The algorithms that are not a planned reduction tree, one X(ENUM, name, "text", value) each. reduce-scatter runs
 * MPI_Reduce too (Rabenseifner: recursive halving, then every block to the root); recursive-doubling and ring do not
 * apply to MPI_Reduce: the model's tree is planned. ring folds each block in an order that is not the ranks': under a
 * non-commutative op reduce-scatter runs instead. tree-dyn (Tree-dyn of Benoit, Canon & Marchal, Non-Commut-Tree-dyn
 * under a non-commutative op) is MPI_Reduce's only: the pairs are chosen while the reduction runs, as ranks arrive
 * and finish their folds; MPI_Allreduce and MPI_Reduce_scatter_block plan the model's tree for it. arrival-tree is
 * MPI_Reduce's only too: the pairs tree-dyn would choose, chosen before the call from when each rank is expected to
 * come (under auto, the arrivals it measured on the key; asked for, ranks that come together). late-rank is for
 * MPI_Allreduce and MPI_Reduce_scatter_block of commutative ops: the ranks but one reduce-scatter among themselves
 * while the one expected last is away, and it joins with one message to each and gets its result from them (under
 * auto, the rank the key's arrivals showed latest; asked for, the last rank); MPI_Reduce plans the model's tree for
 * it, and a non-commutative op runs reduce-scatter. allgather is for MPI_Allreduce and MPI_Reduce_scatter_block:
 * every rank sends its vector (its block q) to every rank q at once and folds what it gets itself, in the ranks'
 * order, so one latency is paid instead of lg p (short vectors on slow links); MPI_Reduce plans the model's tree. */
/* clang-format off */
#define REDUX_FAMILY_ALGORITHMS(X)                                                                             \
    X(RECURSIVE_DOUBLING, recursive_doubling, "recursive-doubling", 16) /* allreduce: lg p full exchanges */  \
    X(REDUCE_SCATTER,     reduce_scatter,     "reduce-scatter",     17) /* recursive halving (+ allgather) */ \
    X(TREE_DYN,           tree_dyn,           "tree-dyn",           18) /* reduce: pairs chosen at run time */ \
    X(RING,               ring,               "ring",               19) /* ring reduce-scatter (+ allgather) */ \
    X(ARRIVAL_TREE,       arrival_tree,       "arrival-tree",       20) /* reduce: a tree for the arrivals */ \
    X(LATE_RANK,          late_rank,          "late-rank",          21) /* one rank comes last */        \
    X(ALLGATHER,          allgather,          "allgather",          22) /* every vector to every rank */
/* clang-format on */

#define REDUX_ALGORITHM_ENUMERATOR_(ENUM, name, text, value, needs) REDUX_ALGORITHM_##ENUM = value,
#define REDUX_FAMILY_ENUMERATOR_(ENUM, name, text, value) REDUX_ALGORITHM_##ENUM = value,

typedef enum redux_algorithm {
    REDUX_ALGORITHM_CONFIGURED = 0, /* whatever REDUX_ALGORITHM says (default auto) */
    REDUX_ALGORITHM_AUTO = 1,       /* the tree the model predicts fastest, or the MPI library's, as measured */
    REDUX_ALGORITHM_NATIVE = 5,     /* the MPI library's own MPI_Reduce (PMPI_Reduce) */
    REDUX_STRATEGIES(REDUX_ALGORITHM_ENUMERATOR_) REDUX_FAMILY_ALGORITHMS(REDUX_FAMILY_ENUMERATOR_)
} redux_algorithm;

#undef REDUX_ALGORITHM_ENUMERATOR_
#undef REDUX_FAMILY_ENUMERATOR_

#endif /* REDUX_ALGORITHMS_H */
