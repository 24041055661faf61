// sweep: 2-D wavefront sweep on a Px x Py process grid, Sweep3D-like.
// The N x N x N grid is split in x over Px and in y over Py ranks (Px = largest
// divisor of P not above sqrt(P), kept in dims[]); z is cut into blocks of K
// planes. For each block a rank receives a K-plane face from the west and from
// the north, sweeps its (N/Px) x (N/Py) x K cells, and sends faces east and
// south: a pipeline from rank (0,0) to (Px-1,Py-1). NITER source iterations,
// each ended by an MPI_Allreduce of the scalar flux. The Fortran twin keeps
// these constants in the include file sweep.h.
// args: N K   (N divisible by Px, Py and K, N/Px <= NXMAX, N/Py <= NYMAX,
//              K <= KMAX; small: 64 4)
// expect: loop trip NITER
// expect: loop trip N/K
// expect: loop trip K
// expect: loop trip N/Px (unresolved: bound held in array dims)
// expect: loop trip N/Py (unresolved: bound held in array dims)
// expect: message bytes 8*K*N/Py
// expect: message bytes 8*K*N/Px
// expect: pipeline depth Px+Py-2
// expect: checksum independent of P and K
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NXMAX 256
#define NYMAX 256
#define KMAX 64
#define NITER 2
#define TAG_EW 41
#define TAG_NS 42

static double phi[NYMAX + 1][NXMAX + 1];   // row 0 / column 0 hold the inflow faces
static double flux[NYMAX][NXMAX];
static double wrecv[NYMAX * KMAX], nrecv[NXMAX * KMAX];
static double esend[NYMAX * KMAX], ssend[NXMAX * KMAX];

int main(int argc, char **argv)
{
    int nprocs, rank, n, kb, d, cx, cy, nxl, nyl, nblk, it, blk, k, j, i, gi, gj, gk;
    int dims[2];
    double scale, src, local, total;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: sweep N K\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    kb = atoi(argv[2]);

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
    nxl = n / dims[0];
    nyl = n / dims[1];
    if (kb < 1 || kb > KMAX || nxl < 1 || nyl < 1 || nxl > NXMAX || nyl > NYMAX
        || nxl * dims[0] != n || nyl * dims[1] != n || n % kb != 0) {
        if (rank == 0)
            fprintf(stderr, "sweep: N must divide by Px, Py and K within the array limits\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nblk = n / kb;

    scale = 1.0;
    total = 0.0;
    for (it = 0; it < NITER; it++) {
        for (j = 0; j < nyl; j++) {
            for (i = 0; i < nxl; i++) {
                flux[j][i] = 0.0;
            }
        }
        for (blk = 0; blk < nblk; blk++) {
            // ranks on the west/north boundary keep zero inflow (never received into)
            if (cx > 0)
                MPI_Recv(wrecv, nyl * kb, MPI_DOUBLE, rank - 1, TAG_EW, MPI_COMM_WORLD, &status);
            if (cy > 0)
                MPI_Recv(nrecv, nxl * kb, MPI_DOUBLE, rank - dims[0], TAG_NS, MPI_COMM_WORLD,
                         &status);
            for (k = 0; k < kb; k++) {
                gk = blk * kb + k;
                for (j = 1; j <= nyl; j++) {
                    phi[j][0] = wrecv[k * nyl + j - 1];
                }
                for (i = 1; i <= nxl; i++) {
                    phi[0][i] = nrecv[k * nxl + i - 1];
                }
                for (j = 1; j <= nyl; j++) {
                    for (i = 1; i <= nxl; i++) {
                        gi = cx * nxl + i;
                        gj = cy * nyl + j;
                        src = scale * (1.0 + 0.1 * (double)((gi + 2 * gj + 3 * gk) % 5));
                        phi[j][i] = (src + 0.4 * phi[j][i - 1] + 0.3 * phi[j - 1][i]) / 1.7;
                        flux[j - 1][i - 1] = flux[j - 1][i - 1] + phi[j][i];
                    }
                }
                for (j = 1; j <= nyl; j++) {
                    esend[k * nyl + j - 1] = phi[j][nxl];
                }
                for (i = 1; i <= nxl; i++) {
                    ssend[k * nxl + i - 1] = phi[nyl][i];
                }
            }
            if (cx < dims[0] - 1)
                MPI_Send(esend, nyl * kb, MPI_DOUBLE, rank + 1, TAG_EW, MPI_COMM_WORLD);
            if (cy < dims[1] - 1)
                MPI_Send(ssend, nxl * kb, MPI_DOUBLE, rank + dims[0], TAG_NS, MPI_COMM_WORLD);
        }
        local = 0.0;
        for (j = 0; j < nyl; j++) {
            for (i = 0; i < nxl; i++) {
                local = local + flux[j][i];
            }
        }
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        scale = 1.0 / (1.0 + total / ((double)n * (double)n * (double)n));
    }

    if (rank == 0)
        printf("sweep P=%d N=%d K=%d Px=%d Py=%d checksum=%.6E\n", nprocs, n, kb, dims[0],
               dims[1], total);
    MPI_Finalize();
    return 0;
}
