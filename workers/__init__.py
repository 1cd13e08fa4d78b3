"""Workers: everything that happens later or slowly (RQ jobs run by `burro worker`)."""
