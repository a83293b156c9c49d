/* A tiny MPI job for lab/tools.py: one all-reduce across every rank, then each rank says where it ran. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int rank, size; char host[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host);
    double v = rank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d on %s: allreduce sum=%.0f\n", rank, size, host, sum);
    MPI_Finalize();
    return 0;
}
