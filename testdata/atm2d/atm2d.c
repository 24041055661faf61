// atm2d: red/black 2-D halo exchange on a Px x Py process grid (seed 004 §5.2).
// Each rank owns LAMBDA x LAMBDA points of a diffusion field plus a halo. Per
// step it relaxes the red points, exchanges halos, relaxes the black points,
// exchanges again. Ranks are coloured like a checkerboard: red ranks exchange
// N, S, E, W and black ranks S, N, W, E (the seed's deadlock-free order), each
// exchange one MPI_Sendrecv of LAMBDA doubles. Px is the largest divisor of P
// not above sqrt(P), found by a while loop; the neighbour ranks sit in the
// array nbr[] (MPI_PROC_NULL on the outer boundary), so peers are only known
// at run time.
// args: LAMBDA STEPS   (small: 64 20)
// expect: loop trip STEPS
// expect: loop trip 2
// expect: loop trip LAMBDA
// expect: compute LAMBDA^2 per colour per step
// expect: message bytes 8*LAMBDA
// expect: phase synchronous
// expect: peer unresolved (held in array nbr)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_N 31   // message travelling north
#define TAG_S 32
#define TAG_E 33
#define TAG_W 34

// u is (lam+2) x (lam+2), x index fastest; nbr = {north, south, east, west}
static void exchange(double *u, int lam, const int *nbr, int red, double *sb, double *rb)
{
    int w = lam + 2, i;
    MPI_Status st;

    for (i = 1; i <= lam; i++) {
        sb[0 * lam + i - 1] = u[lam * w + i];   // top row, to north
        sb[1 * lam + i - 1] = u[1 * w + i];     // bottom row, to south
        sb[2 * lam + i - 1] = u[i * w + lam];   // right column, to east
        sb[3 * lam + i - 1] = u[i * w + 1];     // left column, to west
    }
    if (red) {
        MPI_Sendrecv(&sb[0], lam, MPI_DOUBLE, nbr[0], TAG_N,
                     &rb[0], lam, MPI_DOUBLE, nbr[0], TAG_S,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[lam], lam, MPI_DOUBLE, nbr[1], TAG_S,
                     &rb[lam], lam, MPI_DOUBLE, nbr[1], TAG_N,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[2 * lam], lam, MPI_DOUBLE, nbr[2], TAG_E,
                     &rb[2 * lam], lam, MPI_DOUBLE, nbr[2], TAG_W,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[3 * lam], lam, MPI_DOUBLE, nbr[3], TAG_W,
                     &rb[3 * lam], lam, MPI_DOUBLE, nbr[3], TAG_E,
                     MPI_COMM_WORLD, &st);
    } else {
        MPI_Sendrecv(&sb[lam], lam, MPI_DOUBLE, nbr[1], TAG_S,
                     &rb[lam], lam, MPI_DOUBLE, nbr[1], TAG_N,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[0], lam, MPI_DOUBLE, nbr[0], TAG_N,
                     &rb[0], lam, MPI_DOUBLE, nbr[0], TAG_S,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[3 * lam], lam, MPI_DOUBLE, nbr[3], TAG_W,
                     &rb[3 * lam], lam, MPI_DOUBLE, nbr[3], TAG_E,
                     MPI_COMM_WORLD, &st);
        MPI_Sendrecv(&sb[2 * lam], lam, MPI_DOUBLE, nbr[2], TAG_E,
                     &rb[2 * lam], lam, MPI_DOUBLE, nbr[2], TAG_W,
                     MPI_COMM_WORLD, &st);
    }
    // a receive from MPI_PROC_NULL leaves rb untouched: rb holds zeros there
    for (i = 1; i <= lam; i++) {
        u[(lam + 1) * w + i] = rb[0 * lam + i - 1];
        u[0 * w + i] = rb[1 * lam + i - 1];
        u[i * w + lam + 1] = rb[2 * lam + i - 1];
        u[i * w + 0] = rb[3 * lam + i - 1];
    }
}

int main(int argc, char **argv)
{
    int nprocs, rank, lam, steps, d, cx, cy, red, step, c, i, j, gi, gj, w;
    int dims[2], nbr[4];
    double *u, *f, *sb, *rb;
    double local, total;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: atm2d LAMBDA STEPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    lam = atoi(argv[1]);
    steps = atoi(argv[2]);
    if (lam < 1) {
        if (rank == 0)
            fprintf(stderr, "atm2d: LAMBDA must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    // Px = largest divisor of P with Px*Px <= P
    dims[0] = 1;
    d = 1;
    while (d * d <= nprocs) {
        if (nprocs % d == 0)
            dims[0] = d;
        d = d + 1;
    }
    dims[1] = nprocs / dims[0];
    cx = rank % dims[0];
    cy = rank / dims[0];
    red = (cx + cy) % 2 == 0;
    nbr[0] = cy < dims[1] - 1 ? rank + dims[0] : MPI_PROC_NULL;
    nbr[1] = cy > 0 ? rank - dims[0] : MPI_PROC_NULL;
    nbr[2] = cx < dims[0] - 1 ? rank + 1 : MPI_PROC_NULL;
    nbr[3] = cx > 0 ? rank - 1 : MPI_PROC_NULL;

    w = lam + 2;
    u = malloc(sizeof(double) * (size_t)w * (size_t)w);
    f = malloc(sizeof(double) * (size_t)w * (size_t)w);
    sb = malloc(sizeof(double) * 4 * (size_t)lam);
    rb = malloc(sizeof(double) * 4 * (size_t)lam);
    for (j = 0; j < w; j++) {
        for (i = 0; i < w; i++) {
            gi = cx * lam + i;
            gj = cy * lam + j;
            u[j * w + i] = 0.0;
            f[j * w + i] = 0.01 * (double)((3 * gi + 5 * gj) % 13);
        }
    }
    for (i = 0; i < 4 * lam; i++) {
        rb[i] = 0.0;
    }

    for (step = 0; step < steps; step++) {
        for (c = 0; c < 2; c++) {
            for (j = 1; j <= lam; j++) {
                for (i = 1; i <= lam; i++) {
                    gi = cx * lam + i;
                    gj = cy * lam + j;
                    if ((gi + gj) % 2 == c)
                        u[j * w + i] = 0.24 * (u[(j + 1) * w + i] + u[(j - 1) * w + i]
                                               + u[j * w + i + 1] + u[j * w + i - 1])
                                       + f[j * w + i];
                }
            }
            exchange(u, lam, nbr, red, sb, rb);
        }
    }

    local = 0.0;
    for (j = 1; j <= lam; j++) {
        for (i = 1; i <= lam; i++) {
            local = local + u[j * w + i];
        }
    }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("atm2d P=%d LAMBDA=%d STEPS=%d Px=%d Py=%d checksum=%.6E\n", nprocs, lam, steps,
               dims[0], dims[1], total);
    free(u);
    free(f);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
