#!/bin/sh
# Derives crabs_r_export.csv from crabs_spread.csv as R's write.csv(crabs) would write it on
# Windows, the way such files reach users: a quoted header whose first field is empty (the
# row-name column, quoted row names 1..200), the target as the strings "F"/"M" (sex; y = +1
# is male), CRLF line ends, and "NA" for the carapace width CW of four test crabs (rows
# 12, 61, 114, 164 of the file). examples/pipelines/crabs_r_export.yaml reads it. See README.md.
set -eu
cd "$(dirname "$0")"
awk -F, 'BEGIN { OFS = "," }
  NR == 1 { printf "\"\",\"sp\",\"FL\",\"RW\",\"CL\",\"CW\",\"BD\",\"train\",\"sex\"\r\n"; next }
  {
    if (NR == 12 || NR == 61 || NR == 114 || NR == 164) { if ($7 != 0) exit 1; $5 = "NA" }
    printf "\"%d\",%s,%s,%s,%s,%s,%s,%s,\"%s\"\r\n", NR - 1, $1, $2, $3, $4, $5, $6, $7,
           ($8 == 1 ? "M" : "F")
  }' crabs_spread.csv > crabs_r_export.csv
