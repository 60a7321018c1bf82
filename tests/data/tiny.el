# unweighted edge list
0 1
0 2
1 2
2 0
4 4
2 5
5 4
0 1
4 0
