"""The front desk's contract: one family evening through every platform's parser."""
