! Calls two kernels through their generated Fortran interfaces: the
! inverse Helmholtz operator compiled column-major (arrays as declared)
! and a sized program compiled row-major (arrays transposed), and
! compares with plain loops.
program check_fortran
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  use helmholtz_interface, only: helmholtz
  use rows_interface, only: rows
  implicit none
  integer, parameter :: p = 5
  integer(c_int64_t), parameter :: e = 11
  real(c_double) :: S(p, p), D(p, p, p), u(p, p, p), v(p, p, p)
  real(c_double) :: t(p, p, p), r(p, p, p), expected(p, p, p)
  real(c_double) :: A(3, e), w(3), y(e)
  real(c_double) :: error
  integer :: i, j, k, l, m, n

  do j = 1, p
    do i = 1, p
      S(i, j) = 0.25d0 * mod(3 * i + j, 7) - 0.5d0
    end do
  end do
  do k = 1, p
    do j = 1, p
      do i = 1, p
        D(i, j, k) = 1.0d0 + mod(i + 2 * j + k, 3)
        u(i, j, k) = 0.125d0 * mod(i + 3 * j + 5 * k, 11) - 0.5d0
      end do
    end do
  end do
  call helmholtz(S, D, u, v)
  do k = 1, p
    do j = 1, p
      do i = 1, p
        t(i, j, k) = 0
        do n = 1, p
          do m = 1, p
            do l = 1, p
              t(i, j, k) = t(i, j, k) + S(i, l) * S(j, m) * S(k, n) * u(l, m, n)
            end do
          end do
        end do
      end do
    end do
  end do
  r = D * t
  do k = 1, p
    do j = 1, p
      do i = 1, p
        expected(i, j, k) = 0
        do n = 1, p
          do m = 1, p
            do l = 1, p
              expected(i, j, k) = expected(i, j, k) + &
                  S(l, i) * S(m, j) * S(n, k) * r(l, m, n)
            end do
          end do
        end do
      end do
    end do
  end do
  error = maxval(abs(v - expected))
  print '(a, l1)', 'helmholtz max error below 1e-12: ', error < 1d-12

  do j = 1, int(e)
    do i = 1, 3
      A(i, j) = i - 0.5d0 * j
    end do
  end do
  w = [1.0d0, -2.0d0, 0.5d0]
  call rows(e, A, w, y)
  error = maxval(abs(y - matmul(w, A)))
  print '(a, l1)', 'rows max error below 1e-12: ', error < 1d-12
end program check_fortran
